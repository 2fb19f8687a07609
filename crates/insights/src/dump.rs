//! The insight sets in the data conformance dump, as the oracle's
//! `devtools-data.mjs` writes DevTools' own: each set's id, URL, frame,
//! bounds and navigation, and every insight's model (its words, verdict,
//! savings, related events and findings) by the dump's rules.

use tracekit_engine::handlers::page::network::track_entry_synthetic;
use tracekit_engine::handlers::page::EntityEvent;
use tracekit_engine::support::dump::{Dump, Object, Value};
use tracekit_engine::{Analysis, HandlerData};

use crate::model::{EventRef, Finding, Insight, MetricSavings, RelatedEvents};
use crate::sets::{InsightSet, InsightSets};

/// What the dump of an insight refers to: the handlers' data, to write
/// the events they made.
pub struct DumpCx<'a, 'd> {
    /// The dump being made.
    pub dump: &'a mut Dump<'d>,
    /// Every handler's data.
    pub data: &'a HandlerData,
    /// The tracks (what the entries the data name by place are read from).
    pub analysis: &'a Analysis,
}

impl DumpCx<'_, '_> {
    /// An event an insight points at, as the dump writes it.
    pub fn event(&mut self, event: EventRef) -> Value {
        match event {
            EventRef::Input(index) => Value::Event(index),
            EventRef::Request(i) => Value::Synthetic(self.data.network_requests().dump_request(i, self.dump)),
            EventRef::Interaction(i) => self.data.user_interactions().dump_interaction(i, self.dump),
            EventRef::LayoutShift(c, s) => {
                let shifts = self.data.layout_shifts();
                Value::Synthetic(shifts.dump_shift(c, s, self.data.screenshots(), self.dump))
            }
            EventRef::LayoutShiftCluster(c) => {
                let shifts = self.data.layout_shifts();
                Value::Synthetic(shifts.dump_cluster(c, self.data.screenshots(), self.dump))
            }
            EventRef::Animation(i) => Value::Synthetic(self.data.animations().dump_animation(i, self.dump)),
            EventRef::Entity(e) => self.entity_event(e),
            EventRef::RedirectHop(i, hop) => {
                Value::Synthetic(self.data.network_requests().dump_redirect_hop(i, hop, self.dump))
            }
        }
    }

    /// An event of an entity: a request, an input event, or a track's
    /// entry DevTools made (a JS call, a begin/end pair).
    fn entity_event(&mut self, event: EntityEvent) -> Value {
        match event {
            EntityEvent::Request(i) => {
                Value::Synthetic(self.data.network_requests().dump_request(i as usize, self.dump))
            }
            EntityEvent::Event(index) => Value::Event(index),
            _ => track_entry_synthetic(event, &self.analysis.numbered_threads(), self.dump)
                .map_or(Value::Null, Value::Synthetic),
        }
    }

    /// A list of events.
    pub fn events(&mut self, events: &[EventRef]) -> Value {
        Value::Array(events.iter().map(|&e| self.event(e)).collect())
    }
}

/// Adds the insight sets of `analysis` to a dump of its handlers' data.
pub fn add_sets(sets: &InsightSets, analysis: &Analysis, dump: &mut Dump<'_>) {
    let Some(data) = analysis.handlers() else {
        return;
    };
    for set in &sets.sets {
        let value = set_value(set, &mut DumpCx { dump, data, analysis });
        dump.insight_set(value);
    }
}

fn set_value(set: &InsightSet, cx: &mut DumpCx<'_, '_>) -> Value {
    let bounds = Object::new()
        .with("min", Value::Num(set.bounds.min.0))
        .with("max", Value::Num(set.bounds.max.0))
        .with("range", Value::Num(set.bounds.max.0 - set.bounds.min.0));
    let mut model = Object::new();
    let mut errors = Vec::new();
    for insight in &set.insights {
        match insight {
            Ok(insight) => model.push(insight.ui().key, insight_value(insight, set, cx)),
            Err(e) => errors.push(e.ui.key),
        }
    }
    errors.sort_unstable();
    Object::new()
        .with("id", Value::str(set.id.to_string()))
        .with("url", Value::str(set.url.clone()))
        .with("frameId", Value::opt(set.frame_id, Value::Sym))
        .with("bounds", bounds.into())
        .with("navigation", Value::opt(set.navigation.map(|n| n.event), Value::Event))
        .with("model", model.into())
        .with(
            "modelErrors",
            Value::Array(errors.into_iter().map(Value::str).collect()),
        )
        .into()
}

/// One insight's model: the members every insight has, then its own.
fn insight_value(insight: &Insight, set: &InsightSet, cx: &mut DumpCx<'_, '_>) -> Value {
    let ui = insight.ui();
    let strings = ui
        .strings
        .iter()
        .fold(Object::new(), |o, (name, text)| o.with(*name, Value::str(*text)));
    let mut model = Object::new()
        .with("insightKey", Value::str(ui.key))
        .with("title", Value::str(ui.title))
        .with("description", Value::str(ui.description))
        .with("docs", Value::str(ui.docs))
        .with("category", Value::str(ui.category.as_str()))
        .with("state", Value::str(insight.state.as_str()))
        .with("strings", strings.into())
        .with_some("frameId", set.frame_id.map(Value::Sym))
        .with_some(
            "navigation",
            set.navigation
                .filter(|n| n.navigation_id.is_some())
                .map(|n| Value::Event(n.event)),
        )
        .with_some(
            "metricSavings",
            (insight.metric_savings.map(savings_value))
                .or_else(|| insight.finding.savings_member_always().then_some(Value::Null)),
        )
        .with_some("wastedBytes", insight.wasted_bytes.map(Value::Num));
    if !insight.warnings.is_empty() {
        let warnings = insight.warnings.iter().map(|w| Value::str(w.as_str())).collect();
        model.push("warnings", Value::Array(warnings));
    }
    if let Some(related) = &insight.related_events {
        let value = match related {
            RelatedEvents::List(events) => cx.events(events),
            RelatedEvents::Entities(_) => Value::Array(related.events().map(|e| cx.event(e)).collect()),
            RelatedEvents::Labelled(events) => Value::Map(
                events
                    .iter()
                    .map(|(e, labels)| {
                        let labels = labels.iter().map(|l| Value::str(l.clone())).collect();
                        (cx.event(*e), Value::Array(labels))
                    })
                    .collect(),
            ),
        };
        model.push("relatedEvents", value);
    }
    finding_members(&insight.finding, &mut model, cx);
    model.into()
}

fn savings_value(s: MetricSavings) -> Value {
    Object::new()
        .with_some("FCP", s.fcp.map(Value::Num))
        .with_some("LCP", s.lcp.map(Value::Num))
        .with_some("TBT", s.tbt.map(Value::Num))
        .with_some("CLS", s.cls.map(Value::Num))
        .with_some("INP", s.inp.map(Value::Num))
        .into()
}

/// The members of an insight's model that are its own.
fn finding_members(finding: &Finding, model: &mut Object, cx: &mut DumpCx<'_, '_>) {
    match finding {
        Finding::Cache(f) => f.dump(model, cx),
        Finding::ImageDelivery(f) => f.dump(model, cx),
        Finding::InpBreakdown(f) => f.dump(model, cx),
        Finding::ModernHttp(f) => f.dump(model, cx),
        Finding::DuplicatedJavaScript(f) => f.dump(model, cx),
        Finding::RenderBlocking(f) => f.dump(model, cx),
        Finding::NetworkDependencyTree(f) => f.dump(model, cx),
        Finding::LegacyJavaScript(f) => f.dump(model, cx),
        Finding::CharacterSet(f) => f.dump(model, cx),
        Finding::ClsCulprits(f) => f.dump(model, cx),
        Finding::DocumentLatency(f) => f.dump(model, cx),
        Finding::FontDisplay(f) => f.dump(model, cx),
        Finding::LcpBreakdown(f) => f.dump(model, cx),
        Finding::LcpDiscovery(f) => f.dump(model, cx),
        Finding::ThirdParties(f) => f.dump(model, cx),
        Finding::Viewport(f) => f.dump(model, cx),
        Finding::ForcedReflow(f) => f.dump(model, cx),
        Finding::SlowCssSelector(f) => f.dump(model),
        Finding::DomSize(f) => f.dump(model),
    }
}
