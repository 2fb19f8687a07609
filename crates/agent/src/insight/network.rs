//! The analysis of the network dependency tree insight: the chains of
//! critical requests as an indented tree, the origins the page
//! preconnected to and those worth preconnecting to.

use tracekit_insights::network_dependency_tree::{CriticalNode, NetworkDependencyTree, PreconnectSource};
use tracekit_insights::EventRef;

use tracekit_engine::support::jsnum::js_number_string;

use super::{micros, Cx};
use crate::units::millis;

/// More preconnects than this are too many.
const TOO_MANY_PRECONNECTS: usize = 4;

/// A node's request as `URL (eventKey: ..., ts: ...)`. A redirect hop
/// is Lantern's copy of its request; when the copy stands on a copy of
/// the redirected send (an event not in the trace) it has no key.
fn node_url(cx: &Cx<'_>, request: EventRef) -> String {
    let requests = cx.requests();
    match request {
        EventRef::Request(at) => requests.get(at).map_or(String::new(), |r| requests.url_and_key(r)),
        EventRef::RedirectHop(at, _) => {
            let Some(r) = requests.get(at) else {
                return String::new();
            };
            let copied = u32::try_from(at).is_ok_and(|i| cx.data.network_requests().redirected_sends.contains_key(&i));
            if copied {
                format!("{} (eventKey: null, ts: {})", requests.url(r), js_number_string(r.ts.0))
            } else {
                requests.url_and_key(r)
            }
        }
        _ => String::new(),
    }
}

fn write_node(cx: &Cx<'_>, node: &CriticalNode, indent: &str, out: &mut String) {
    out.push_str(&format!(
        "{indent}- {} ({}){}\n",
        node_url(cx, node.request),
        micros(node.time_from_initial_request.0),
        if node.is_longest { " (longest chain)" } else { "" }
    ));
    let deeper = format!("{indent}  ");
    for child in &node.children {
        write_node(cx, child, &deeper, out);
    }
}

/// The analysis.
pub(super) fn network_dependency_tree(cx: &Cx<'_>, f: &NetworkDependencyTree) -> String {
    let mut out = if f.fail {
        "The network dependency tree checks found one or more problems.\n\n".to_owned()
    } else {
        "The network dependency tree checks revealed no problems, but optimization suggestions may be available.\n\n"
            .to_owned()
    };
    if f.root_nodes.is_empty() {
        out += &format!("{}.\n\n", cx.ui("noNetworkDependencyTree"));
    } else {
        out += &format!("Max critical path latency is {}\n\n", micros(f.max_time.0));
        out += "The following is the critical request chain:\n";
        for node in &f.root_nodes {
            write_node(cx, node, "", &mut out);
        }
        out += "\n";
    }
    let origins = &f.preconnected_origins;
    if origins.is_empty() {
        out += &format!("{}.", cx.ui("noPreconnectOrigins"));
    } else {
        out += &format!(
            "{}:\n{}\n",
            cx.ui("preconnectOriginsTableTitle"),
            cx.ui("preconnectOriginsTableDescription")
        );
        for origin in origins {
            let source = match &origin.source {
                PreconnectSource::Dom { .. } => "DOM",
                PreconnectSource::ResponseHeader { .. } => "ResponseHeader",
            };
            out += &format!("\n  - {}\n    - {}: '{source}'", origin.url, cx.ui("columnSource"));
            if let PreconnectSource::ResponseHeader { header_text, .. } = &origin.source {
                out += &format!("\n   - Header: '{header_text}'");
            }
            if origin.unused {
                out += &format!("\n   - Warning: {}", cx.ui("unusedWarning"));
            }
            if origin.crossorigin {
                out += &format!("\n   - Warning: {}", cx.ui("crossoriginWarning"));
            }
        }
        if origins.len() > TOO_MANY_PRECONNECTS {
            out += &format!("\n\n**Warning**: {}", cx.ui("tooManyPreconnectLinksWarning"));
        }
    }
    if !f.preconnect_candidates.is_empty() && origins.len() < TOO_MANY_PRECONNECTS {
        out += &format!(
            "\n\n{}:\n{}\n",
            cx.ui("estSavingTableTitle"),
            cx.ui("estSavingTableDescription")
        );
        for c in &f.preconnect_candidates {
            out += &format!(
                "\nAdding [preconnect] to origin '{}' would save {}.",
                c.origin,
                millis(c.wasted_ms)
            );
        }
    }
    out
}
