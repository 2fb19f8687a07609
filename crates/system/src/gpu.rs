//! The GPU handler: the `GPUTask` events of the GPU process' main thread
//! (the process and thread the Meta handler names).

use tracekit_events::dump::{Dump, Object, Value};
use tracekit_events::{names, Context, Event, EventIndex, Handler, Id, Micros, Wants};
use tracekit_meta::MetaData;

use crate::Map;

/// The GPU handler (see the module documentation).
#[derive(Debug, Default)]
pub struct GpuHandler {
    /// Every `GPUTask`, by process and thread, with its start and
    /// duration.
    tasks: Map<(Id, Id), Vec<(EventIndex, GpuTaskTime)>>,
}

/// When a `GPUTask` ran: what the chart's GPU track draws.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuTaskTime {
    /// Its start (the event's `ts`).
    pub ts: Micros,
    /// Its duration (`dur`; 0 when the event has none).
    pub dur: Micros,
}

/// The GPU's work in a trace.
#[derive(Debug, Clone, Default)]
pub struct Gpu {
    /// The `GPUTask` events of the GPU process' main thread, in input
    /// order (none when the trace does not name that thread).
    pub main_thread_tasks: Vec<EventIndex>,
    /// When each of [`Gpu::main_thread_tasks`] ran, in the same order.
    pub main_thread_task_times: Vec<GpuTaskTime>,
}

impl Handler for GpuHandler {
    type Deps<'d> = &'d MetaData;
    type Data = Gpu;

    const WANTS: Wants = Wants::Named(&[names::GPU_TASK]);

    fn enabled(options: &tracekit_events::AnalyzeOptions) -> bool {
        options.all_handlers
    }

    fn handle_event(&mut self, index: EventIndex, event: &Event<'_>, _cx: &mut Context) {
        let time = GpuTaskTime {
            ts: event.ts,
            dur: event.dur.unwrap_or(Micros::ZERO),
        };
        self.tasks
            .entry((event.pid, event.tid))
            .or_default()
            .push((index, time));
    }

    fn finalize(mut self, meta: &MetaData, _cx: &mut Context) -> Gpu {
        // DevTools looks the thread up only when its id is truthy: a GPU
        // main thread of tid 0 has no tasks.
        let thread = meta.gpu_thread_id.filter(|tid| tid.as_f64() != Some(0.0));
        let tasks = match (meta.gpu_process_id, thread) {
            (Some(pid), Some(tid)) => self.tasks.swap_remove(&(pid, tid)).unwrap_or_default(),
            _ => Vec::new(),
        };
        let (main_thread_tasks, main_thread_task_times) = tasks.into_iter().unzip();
        Gpu {
            main_thread_tasks,
            main_thread_task_times,
        }
    }
}

impl Gpu {
    /// This data in the data conformance dump.
    pub fn dump(&self, _dump: &mut Dump<'_>) -> Value {
        Object::new()
            .with(
                "mainGPUThreadTasks",
                Value::events(self.main_thread_tasks.iter().copied()),
            )
            .into()
    }
}
