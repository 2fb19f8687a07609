//! The Arrow schema of each table (documented column by column in
//! `docs/tables.md`). Only types every reader maps: signed integers (Spark
//! has no unsigned ones), doubles, booleans and UTF-8 strings. The page
//! tables' columns are listed once ([`page_columns`]), for their schema
//! and their builders (`page.rs`).

use std::sync::{Arc, OnceLock};

use arrow_schema::{DataType, Field, Schema, SchemaRef};

use crate::Table;

fn field(name: &str, data_type: DataType, nullable: bool) -> Field {
    Field::new(name, data_type, nullable)
}

/// The columns that say which thread of which trace a row is of.
fn thread_key() -> [Field; 3] {
    [
        field("trace", DataType::Utf8, false),
        field("pid", DataType::Int64, true),
        field("tid", DataType::Int64, true),
    ]
}

/// Where a JS function lives: `script_url`, `line_number`,
/// `column_number` (0-based, as DevTools' call frames; not `line` and
/// `column`, which SQL reserves).
fn location() -> [Field; 3] {
    [
        field("script_url", DataType::Utf8, true),
        field("line_number", DataType::Int32, true),
        field("column_number", DataType::Int32, true),
    ]
}

/// The type of a column of a page table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// UTF-8 text.
    Text,
    /// A double.
    Float,
    /// An int64.
    Int,
    /// A boolean.
    Bool,
}

/// A column of a page table (after `trace`): its name, type, and whether
/// it may be null.
pub(crate) type Column = (&'static str, Kind, bool);

/// The columns of `initiators`.
const INITIATORS: &[Column] = &[
    ("event", Kind::Int, true),
    ("name", Kind::Text, true),
    ("pid", Kind::Int, true),
    ("tid", Kind::Int, true),
    ("node", Kind::Int, true),
    ("ts_us", Kind::Float, true),
    ("dur_us", Kind::Float, true),
    ("initiator_event", Kind::Int, true),
    ("initiator_name", Kind::Text, true),
    ("initiator_pid", Kind::Int, true),
    ("initiator_tid", Kind::Int, true),
    ("initiator_node", Kind::Int, true),
    ("initiator_ts_us", Kind::Float, true),
    ("initiator_dur_us", Kind::Float, true),
    ("kind", Kind::Text, true),
    ("task", Kind::Text, true),
];

/// The columns of `warnings`.
const WARNINGS: &[Column] = &[
    ("warning", Kind::Text, false),
    ("label", Kind::Text, false),
    ("event", Kind::Int, true),
    ("name", Kind::Text, true),
    ("pid", Kind::Int, true),
    ("tid", Kind::Int, true),
    ("node", Kind::Int, true),
    ("ts_us", Kind::Float, true),
    ("dur_us", Kind::Float, true),
    ("interaction_type", Kind::Text, true),
];

/// The columns of `insights`.
const INSIGHTS: &[Column] = &[
    ("set", Kind::Text, false),
    ("url", Kind::Text, false),
    ("navigation", Kind::Int, true),
    ("set_start_us", Kind::Float, false),
    ("set_end_us", Kind::Float, false),
    ("insight", Kind::Text, false),
    ("title", Kind::Text, false),
    ("category", Kind::Text, false),
    ("state", Kind::Text, true),
    ("fcp_savings_ms", Kind::Float, true),
    ("lcp_savings_ms", Kind::Float, true),
    ("tbt_savings_ms", Kind::Float, true),
    ("cls_savings", Kind::Float, true),
    ("inp_savings_ms", Kind::Float, true),
    ("wasted_bytes", Kind::Float, true),
    ("related_events", Kind::Int, true),
    ("error", Kind::Text, true),
];

/// The columns of `scripts`.
const SCRIPTS: &[Column] = &[
    ("isolate", Kind::Text, false),
    ("script_id", Kind::Text, false),
    ("url", Kind::Text, true),
    ("frame", Kind::Text, true),
    ("source_url", Kind::Text, true),
    ("source_map_url", Kind::Text, true),
    ("resolved_source_map_url", Kind::Text, true),
    ("source_map_url_elided", Kind::Bool, false),
    ("has_source_map", Kind::Bool, false),
    ("inline", Kind::Bool, false),
    ("length", Kind::Int, true),
    ("has_source", Kind::Bool, false),
    ("request_id", Kind::Text, true),
    ("ts_us", Kind::Float, true),
];

/// The columns of the page tables after `trace` (`docs/tables.md`), in
/// order; none for the other tables.
pub(crate) fn page_columns(table: Table) -> &'static [Column] {
    use Kind::{Bool, Float, Int, Text};
    match table {
        Table::Requests => &[
            ("request_id", Text, false),
            ("url", Text, false),
            ("ts_us", Float, true),
            ("end_ts_us", Float, true),
            ("queueing_us", Float, true),
            ("stalled_us", Float, true),
            ("dns_us", Float, true),
            ("connect_us", Float, true),
            ("ssl_us", Float, true),
            ("send_us", Float, true),
            ("wait_us", Float, true),
            ("download_us", Float, true),
            ("processing_us", Float, true),
            ("transfer_size", Int, true),
            ("body_size", Int, true),
            ("status", Int, true),
            ("mime_type", Text, true),
            ("priority", Text, true),
            ("initial_priority", Text, true),
            ("render_blocking", Text, true),
            ("initiator_type", Text, true),
            ("initiator_url", Text, true),
            ("from_memory_cache", Bool, false),
            ("from_disk_cache", Bool, false),
            ("from_service_worker", Bool, false),
            ("protocol", Text, true),
            ("failed", Bool, false),
            ("finished", Bool, false),
            ("redirects", Text, true),
        ],
        Table::Navigations => &[
            ("navigation_id", Text, true),
            ("url", Text, true),
            ("frame", Text, true),
            ("ts_us", Float, true),
            ("fp_us", Float, true),
            ("fcp_us", Float, true),
            ("fcp_rating", Text, true),
            ("lcp_us", Float, true),
            ("lcp_rating", Text, true),
            ("lcp_image", Text, true),
            ("lcp_node", Int, true),
            ("dcl_us", Float, true),
            ("load_us", Float, true),
            ("tbt_us", Float, true),
            ("tbt_rating", Text, true),
            ("cls", Float, true),
            ("cls_rating", Text, true),
            ("cls_cluster_ts_us", Float, true),
            ("cls_shifts", Int, true),
            ("inp_us", Float, true),
            ("inp_rating", Text, true),
            ("inp_type", Text, true),
            ("inp_ts_us", Float, true),
            ("inp_input_delay_us", Float, true),
            ("inp_processing_us", Float, true),
            ("inp_presentation_delay_us", Float, true),
        ],
        Table::LayoutShifts => &[
            ("ts_us", Float, true),
            ("score", Float, true),
            ("cluster", Int, false),
            ("cluster_score", Float, true),
            ("cluster_ts_us", Float, true),
            ("navigation_id", Text, true),
            ("since_navigation_us", Float, true),
        ],
        Table::Interactions => &[
            ("type", Text, false),
            ("ts_us", Float, true),
            ("dur_us", Float, true),
            ("input_delay_us", Float, true),
            ("processing_us", Float, true),
            ("presentation_delay_us", Float, true),
            ("nested", Bool, false),
            ("interaction_id", Int, true),
            ("navigation_id", Text, true),
        ],
        Table::UserTimings => &[
            ("kind", Text, false),
            ("name", Text, true),
            ("ts_us", Float, true),
            ("dur_us", Float, true),
        ],
        Table::Initiators => INITIATORS,
        Table::Warnings => WARNINGS,
        Table::Scripts => SCRIPTS,
        Table::Insights => INSIGHTS,
        _ => &[],
    }
}

fn build(table: Table) -> Schema {
    use DataType::{Boolean, Float64, Int32, Int64, Utf8};
    let mut fields: Vec<Field> = Vec::new();
    match table {
        Table::Tracks => {
            fields.extend(thread_key());
            fields.extend([
                field("process_url", Utf8, true),
                field("thread_name", Utf8, true),
                field("node", Int64, false),
                field("parent", Int64, true),
                field("depth", Int32, false),
                field("kind", Utf8, false),
                field("name", Utf8, false),
                field("category", Utf8, true),
            ]);
            fields.extend(location());
            fields.extend([
                field("ts_us", Float64, true),
                field("dur_us", Float64, true),
                field("self_us", Float64, true),
            ]);
        }
        Table::Calls => {
            fields.extend(thread_key());
            fields.extend([
                field("node", Int64, false),
                field("parent", Int64, true),
                field("depth", Int32, false),
                field("id", Utf8, false),
                field("name", Utf8, false),
            ]);
            fields.extend(location());
            fields.extend([
                field("self_ms", Float64, true),
                field("total_ms", Float64, true),
                field("samples", Int64, true),
                field("self_samples", Int64, true),
            ]);
        }
        Table::Samples => {
            fields.extend(thread_key());
            fields.extend([
                field("ts_us", Float64, true),
                field("profile_node", Int64, false),
                field("name", Utf8, false),
            ]);
            fields.extend(location());
            fields.push(field("node", Int64, true));
        }
        Table::Threads => {
            fields.extend(thread_key());
            fields.extend([
                field("process_name", Utf8, true),
                field("process_url", Utf8, true),
                field("thread_name", Utf8, true),
                field("is_on_main_frame", Boolean, false),
                field("kept_by_devtools", Boolean, false),
                field("nodes", Int64, false),
                field("events", Int64, false),
                field("js_calls", Int64, false),
                field("samples", Int64, true),
                field("over_budget_nodes", Int64, true),
            ]);
        }
        Table::Diagnostics => {
            fields.extend([
                field("trace", Utf8, false),
                field("kind", Utf8, false),
                field("reason", Utf8, false),
                field("count", Int64, false),
                field("first_example", Utf8, true),
            ]);
        }
        Table::Requests
        | Table::Navigations
        | Table::LayoutShifts
        | Table::Interactions
        | Table::UserTimings
        | Table::Initiators
        | Table::Warnings
        | Table::Scripts
        | Table::Insights => {
            fields.push(field("trace", Utf8, false));
            fields.extend(page_columns(table).iter().map(|&(name, kind, nullable)| {
                let data_type = match kind {
                    Kind::Text => Utf8,
                    Kind::Float => Float64,
                    Kind::Int => Int64,
                    Kind::Bool => Boolean,
                };
                field(name, data_type, nullable)
            }));
        }
    }
    Schema::new(fields)
}

/// The schema of `table`, made once.
pub(crate) fn of(table: Table) -> SchemaRef {
    static SCHEMAS: OnceLock<Vec<SchemaRef>> = OnceLock::new();
    let schemas = SCHEMAS.get_or_init(|| Table::ALL.iter().map(|t| Arc::new(build(*t))).collect());
    Arc::clone(&schemas[table as usize])
}
