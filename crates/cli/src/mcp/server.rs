//! The MCP server's protocol side (the official Rust SDK, `rmcp`): its
//! tools, each resolving its trace under the roots, loading it through
//! the cache off the protocol's thread, and answering within the budget;
//! a failure is the tool's error result, one line, and the server serves
//! on.

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_handler, tool_router, ErrorData as McpError, RoleServer, ServerHandler};

use super::activity::{self, ActivityArgs};
use super::answers::{self, CallTreeArgs, EventArgs, InsightArgs, NetworkArgs, SummaryArgs};
use super::traces::{Loaded, Roots, TraceCache};

/// The server: where it may read, what it has loaded, its budget.
#[derive(Clone)]
pub struct Server {
    /// `--root`: the roots given on the command line, which win over the
    /// client's.
    fixed_roots: Option<Roots>,
    /// The working directory, the root when neither gives one.
    cwd: PathBuf,
    cache: Arc<TraceCache>,
    max_tokens: usize,
    tool_router: ToolRouter<Self>,
}

/// A tool's answer: its text, or the one line of its error.
fn answer(result: Result<String, String>) -> CallToolResult {
    match result {
        Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
        Err(message) => CallToolResult::error(vec![ContentBlock::text(format!("tracekit: {message}"))]),
    }
}

#[tool_router]
impl Server {
    /// A server reading under `roots` (the client's, else the working
    /// directory, when `None`), keeping `cache_bytes` of traces loaded and
    /// answering within `max_tokens`.
    pub fn new(roots: Option<Roots>, cwd: PathBuf, cache: TraceCache, max_tokens: usize) -> Server {
        Server {
            fixed_roots: roots,
            cwd,
            cache: Arc::new(cache),
            max_tokens,
            tool_router: Self::tool_router(),
        }
    }

    /// The roots of this request: `--root`, else the client's (when it
    /// has roots), else the working directory.
    async fn roots(&self, context: &RequestContext<RoleServer>) -> Result<Roots, String> {
        if let Some(roots) = &self.fixed_roots {
            return Ok(roots.clone());
        }
        let has_roots = context
            .peer
            .peer_info()
            .is_some_and(|info| info.capabilities.roots.is_some());
        if has_roots {
            // Roots are the client's way to say where a server may read;
            // the 2026 protocol deprecates them, clients still send them.
            #[allow(deprecated)]
            if let Ok(list) = context.peer.list_roots().await {
                #[allow(deprecated)]
                let dirs: Vec<PathBuf> = list
                    .roots
                    .iter()
                    .filter_map(|r| url::Url::parse(&r.uri).ok()?.to_file_path().ok())
                    .collect();
                if !dirs.is_empty() {
                    return Roots::new(&dirs);
                }
            }
        }
        Roots::new(std::slice::from_ref(&self.cwd))
    }

    /// Loads the trace `path` names (checked against the roots) and runs
    /// `make` on it, off the protocol's thread; the text within the budget.
    async fn on_trace(
        &self,
        path: &str,
        context: &RequestContext<RoleServer>,
        narrow_with: &'static str,
        make: impl FnOnce(&Loaded) -> Result<String, String> + Send + 'static,
    ) -> CallToolResult {
        let roots = match self.roots(context).await {
            Ok(r) => r,
            Err(e) => return answer(Err(e)),
        };
        let file = match roots.resolve(path) {
            Ok(f) => f,
            Err(e) => return answer(Err(e)),
        };
        let cache = Arc::clone(&self.cache);
        let max_tokens = self.max_tokens;
        let work = tokio::task::spawn_blocking(move || {
            let analysis = cache.get(&file)?;
            make(&analysis).map(|text| answers::within_budget(text, max_tokens, narrow_with))
        });
        answer(work.await.unwrap_or_else(|e| Err(format!("the answer failed: {e}"))))
    }

    #[tool(
        description = "The performance summary of a trace, as chrome-devtools-mcp's performance tools give it: the \
                       URL and bounds, each insight set (per navigation) with its metrics (LCP and its breakdown, \
                       INP, CLS, with event keys) and its insights worth a look (bounds, estimated savings, example \
                       questions). Ask analyze_insight about one of them, event about an event key."
    )]
    async fn trace_summary(
        &self,
        Parameters(args): Parameters<SummaryArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        Ok(self
            .on_trace(&args.path, &context, "the other tools", answers::trace_summary)
            .await)
    }

    #[tool(
        description = "One insight of an insight set analysed, as chrome-devtools-mcp's performance_analyze_insight \
                       gives it: insight_set_id and insight_name as trace_summary lists them."
    )]
    async fn analyze_insight(
        &self,
        Parameters(args): Parameters<InsightArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let path = args.path.clone();
        Ok(self
            .on_trace(&path, &context, "another insight", move |t| {
                answers::analyze_insight(t, &args)
            })
            .await)
    }

    #[tool(
        description = "The main thread's activity, as DevTools' AI assistance gives it: for each insight set, the \
                       longest tasks (with their event keys) and the top functions of each, the bottom-up summary \
                       (activities by self time, with their source URLs) and the 3rd parties by main thread time. \
                       window (START,END in the trace's µs, as the summary writes bounds) narrows it to one part."
    )]
    async fn main_thread_activity(
        &self,
        Parameters(args): Parameters<ActivityArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let path = args.path.clone();
        Ok(self
            .on_trace(&path, &context, "`window`", move |t| {
                activity::main_thread_activity(t, &args)
            })
            .await)
    }

    #[tool(
        description = "The call tree of one event of a trace, by its event key (r-N, s-N, p-...) as the summary and \
                       the call trees give them, in DevTools' AI call tree format."
    )]
    async fn event(
        &self,
        Parameters(args): Parameters<EventArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let path = args.path.clone();
        Ok(self
            .on_trace(&path, &context, "an event deeper in the tree", move |t| {
                answers::event(t, &args)
            })
            .await)
    }

    #[tool(
        description = "The Call Tree (top-down) or the Bottom-Up of a trace's threads, as the DevTools Performance \
                       panel aggregates them: a line per node with its self and total ms and percent of the window. \
                       Narrow it with thread, window, max_depth, min_percent."
    )]
    async fn call_tree(
        &self,
        Parameters(args): Parameters<CallTreeArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let path = args.path.clone();
        Ok(self
            .on_trace(
                &path,
                &context,
                "`thread`, `window`, `max_depth` or `min_percent`",
                move |t| answers::call_tree(&t.analysis, &args),
            )
            .await)
    }

    #[tool(
        description = "The network requests of a trace: start and duration, phases, size, status, priority, render \
                       blocking, initiator, URL. Narrow it with filter (part of the URL) and window."
    )]
    async fn network_requests(
        &self,
        Parameters(args): Parameters<NetworkArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let path = args.path.clone();
        Ok(self
            .on_trace(&path, &context, "`filter` or `window`", move |t| {
                answers::network_requests(&t.analysis, &args)
            })
            .await)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("tracekit", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "tracekit reads Chrome performance traces and CPU profiles from files (under the server's roots): \
                 give each tool the trace's path.",
            )
    }
}
