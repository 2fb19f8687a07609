//! `tracekit mcp`: a Model Context Protocol server over stdio, for AI
//! agents: tools that read trace files (any size, gzipped or not) under
//! the server's roots and answer in text within a budget of tokens
//! (docs/mcp.md). Nothing is ever written.

mod activity;
mod answers;
mod server;
mod traces;

use std::path::PathBuf;

use rmcp::ServiceExt;

use crate::error::CliError;

#[derive(clap::Args)]
pub struct McpArgs {
    /// A directory the tools may read traces under (several allowed).
    /// Default: the client's roots, else the working directory.
    #[arg(long, value_name = "DIR")]
    root: Vec<PathBuf>,
    /// The most an answer may be, in tokens (about 4 characters each):
    /// past it, an answer is cut and says how to narrow it.
    #[arg(long, value_name = "N", default_value_t = 25_000, value_parser = clap::value_parser!(u64).range(100..))]
    max_tokens: u64,
    /// The memory the loaded traces may keep, in MB (counted as their
    /// inputs' size); past it, the least recently used are dropped.
    #[arg(long, value_name = "MB", default_value_t = 4096)]
    cache_mb: u64,
    #[command(flatten)]
    source_maps: crate::args::SourceMapsArg,
}

pub fn run(args: McpArgs) -> Result<(), CliError> {
    let roots = if args.root.is_empty() {
        None
    } else {
        Some(traces::Roots::new(&args.root).map_err(CliError::Mcp)?)
    };
    let cwd = std::env::current_dir().map_err(|e| CliError::Mcp(format!("no working directory: {e}")))?;
    let cache = usize::try_from(args.cache_mb.saturating_mul(1_000_000)).unwrap_or(usize::MAX);
    let max_tokens = usize::try_from(args.max_tokens).unwrap_or(usize::MAX);
    // Read once; applied to each trace loaded, after the maps it carries.
    let maps = crate::sourcemaps::given(&args.source_maps)?;
    let server = server::Server::new(
        roots,
        cwd,
        traces::TraceCache::new(cache).with_source_maps(maps),
        max_tokens,
    );
    // One thread serves the protocol; loading and answering run on the
    // runtime's blocking threads (and rayon's pool), so that a long load
    // does not hold up another request.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::Mcp(format!("cannot start: {e}")))?;
    runtime.block_on(async {
        let service = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| CliError::Mcp(format!("the client did not connect: {e}")))?;
        service
            .waiting()
            .await
            .map_err(|e| CliError::Mcp(format!("the connection failed: {e}")))?;
        Ok(())
    })
}
