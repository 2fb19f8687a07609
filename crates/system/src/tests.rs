use tracekit_events::{feed, AnalyzeOptions, Context, Handler, Id};
use tracekit_meta::MetaHandler;

use crate::{DomStatsHandler, GpuHandler, MemoryHandler};

fn cx() -> Context {
    Context::new(AnalyzeOptions::default().with_all_handlers(true))
}

#[test]
fn memory_counters_go_by_process_in_input_order() {
    let trace = r#"[
        {"name":"UpdateCounters","ph":"I","ts":1,"pid":7,"tid":1,"args":{"data":{"jsHeapSizeUsed":1}}},
        {"name":"UpdateCounters","ph":"I","ts":2,"pid":"x","tid":1},
        {"name":"Other","ph":"I","ts":3,"pid":7,"tid":1},
        {"name":"UpdateCounters","ph":"I","ts":4,"pid":7,"tid":2}]"#;
    let mut cx = cx();
    let mut handler = MemoryHandler::default();
    feed(trace, &mut handler, &mut cx).unwrap();
    let memory = handler.finalize((), &mut cx);
    let heaps: Vec<Option<f64>> = memory.values_by_process[&Id::num(7.0)]
        .iter()
        .map(|c| c.js_heap_size_used)
        .collect();
    assert_eq!(heaps, vec![Some(1.0), None]);
    assert_eq!(memory.values_by_process[&Id::num(7.0)][1].ts.0, 4.0);
    let rows: Vec<(Id, Vec<u32>)> = memory.counters_by_process.into_iter().collect();
    let x = Id::str(cx.interner.intern("x"));
    assert_eq!(rows, vec![(Id::num(7.0), vec![0, 3]), (x, vec![1])]);
}

#[test]
fn dom_stats_go_by_frame_and_those_without_data_are_counted() {
    let trace = r#"[
        {"name":"DOMStats","ph":"I","ts":1,"pid":7,"tid":1,"args":{"data":{"frame":"F1","totalElements":10}}},
        {"name":"DOMStats","ph":"I","ts":2,"pid":7,"tid":1,"args":{"data":{}}},
        {"name":"DOMStats","ph":"I","ts":3,"pid":7,"tid":1,"args":{}},
        {"name":"DOMStats","ph":"I","ts":4,"pid":7,"tid":1,"args":{"data":{"frame":"F1"}}}]"#;
    let mut cx = cx();
    let mut handler = DomStatsHandler::default();
    feed(trace, &mut handler, &mut cx).unwrap();
    let stats = handler.finalize((), &mut cx);
    let f1 = cx.interner.intern("F1");
    let events = |frame| stats.by_frame[&frame].iter().map(|e| e.event).collect::<Vec<_>>();
    assert_eq!(events(Some(f1)), vec![0, 3]);
    assert_eq!(events(None), vec![1]);
    // Each keeps its element count; one without a count has NaN, which no
    // count exceeds.
    let f1_stats = &stats.by_frame[&Some(f1)];
    assert_eq!((f1_stats[0].total_elements, f1_stats[0].pid), (10.0, Id::num(7.0)));
    assert!(f1_stats[1].total_elements.is_nan());
    assert_eq!(cx.diagnostics.total_skipped(), 1);
}

#[test]
fn gpu_tasks_of_the_gpu_main_thread_only() {
    let trace = r#"[
        {"name":"process_name","ph":"M","pid":5,"tid":0,"args":{"name":"GPU Process"}},
        {"name":"thread_name","ph":"M","pid":5,"tid":9,"args":{"name":"CrGpuMain"}},
        {"name":"GPUTask","ph":"X","ts":1,"dur":1,"pid":5,"tid":9},
        {"name":"GPUTask","ph":"X","ts":2,"dur":1,"pid":5,"tid":10},
        {"name":"GPUTask","ph":"X","ts":3,"dur":1,"pid":6,"tid":9},
        {"name":"GPUTask","ph":"X","ts":4,"dur":1,"pid":5,"tid":9}]"#;
    let mut cx = cx();
    let mut meta = MetaHandler::default();
    feed(trace, &mut meta, &mut cx).unwrap();
    let meta = meta.finalize((), &mut cx);
    let mut handler = GpuHandler::default();
    feed(trace, &mut handler, &mut cx).unwrap();
    let gpu = handler.finalize(&meta, &mut cx);
    assert_eq!(gpu.main_thread_tasks, vec![2, 5]);
    let starts: Vec<f64> = gpu.main_thread_task_times.iter().map(|t| t.ts.0).collect();
    assert_eq!(starts, vec![1.0, 4.0]);
}
