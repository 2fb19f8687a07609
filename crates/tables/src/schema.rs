//! The Arrow schema of each table (documented column by column in
//! `docs/tables.md`). Only types every reader maps: signed integers (Spark
//! has no unsigned ones), doubles, booleans and UTF-8 strings.

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
    }
    Schema::new(fields)
}

/// The schema of `table`, made once.
pub(crate) fn of(table: Table) -> SchemaRef {
    static SCHEMAS: OnceLock<Vec<SchemaRef>> = OnceLock::new();
    let schemas = SCHEMAS.get_or_init(|| Table::ALL.iter().map(|t| Arc::new(build(*t))).collect());
    Arc::clone(&schemas[table as usize])
}
