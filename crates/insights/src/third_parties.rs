//! 3rd parties: the main frame's main thread time and the bytes received
//! of each third-party entity in the set's window (as the Bottom-Up view
//! grouped by entity counts them: `main_thread.rs`), with every event the
//! entity mappings give each; the navigation's own entity is the first
//! party, any other is a third party.

use std::sync::Arc;

use ahash::AHashMap;
use tracekit_engine::handlers::page::{Entity, EntityEvent};
use tracekit_engine::support::dump::{Object, Value};

use crate::main_thread::{entity_self_times, main_frame_main_thread};
use crate::model::{Category, EventRef, Finding, Insight, RelatedEvents, State, Ui};
use crate::sets::{Context, EntityEvents};

/// DevTools' words for the insight.
pub static UI: Ui = Ui {
    key: "ThirdParties",
    title: "3rd parties",
    description: "3rd party code can significantly impact load performance. [Reduce and defer loading of 3rd party code](https://developer.chrome.com/docs/performance/insights/third-parties) to prioritize your page’s content.",
    docs: "https://developer.chrome.com/docs/performance/insights/third-parties",
    category: Category::All,
    strings: &[
        ("columnMainThreadTime", "Main thread time"),
        ("columnThirdParty", "3rd party"),
        ("columnTransferSize", "Transfer size"),
        ("description", "3rd party code can significantly impact load performance. [Reduce and defer loading of 3rd party code](https://developer.chrome.com/docs/performance/insights/third-parties) to prioritize your page’s content."),
        ("noThirdParties", "No third parties found"),
        ("title", "3rd parties"),
    ],
};

/// What the insight found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ThirdParties {
    /// Each entity that ran on the main thread or received bytes there in
    /// the window, in the order the Bottom-Up makes their groups.
    pub summaries: Vec<EntitySummary>,
    /// The entity of the navigation's URL (of the main frame's, without a
    /// navigation); `None` when the URL has none.
    pub first_party: Option<FirstParty>,
}

/// An entity's share of the main thread.
#[derive(Debug, Clone, PartialEq)]
pub struct EntitySummary {
    /// The entity.
    pub entity: Entity,
    /// Its self time on the main thread in the window, ms.
    pub main_thread_time: f64,
    /// The bytes its requests received on the main thread in the window.
    pub transfer_size: f64,
    /// Every event of the entity (requests, and trace events and JS calls
    /// of every thread), shared with the insight's related events.
    pub events: Arc<Vec<EntityEvent>>,
}

/// The first party.
#[derive(Debug, Clone, PartialEq)]
pub struct FirstParty {
    /// The entity, when some event has it (one made up for a domain no
    /// event has is no summary's).
    pub entity: Option<Entity>,
    /// Its name.
    pub name: String,
}

/// Computes the insight, without the entities' events, which
/// [`compute_with`](crate::compute_with) adds once they are made (they are
/// the same for every set, and made beside the sets); an error where
/// DevTools throws (a received-data event without `args.data` in the
/// window).
pub fn generate(cx: &Context<'_>) -> Result<Insight, String> {
    let found = find(cx)?;
    let first_entity = found.first_party.as_ref().and_then(|f| f.entity);
    let state = if found.summaries.iter().all(|s| Some(s.entity) == first_entity) {
        State::Pass
    } else {
        State::Informative
    };
    Ok(Insight::new(state, Finding::ThirdParties(found)))
}

/// Gives a 3rd parties insight every event of each of its entities
/// (`events`: each entity's events), and its third parties' events as
/// its related events; any other insight is left as it is.
pub(crate) fn attach_events(insight: &mut Insight, events: &EntityEvents) {
    let Finding::ThirdParties(found) = &mut insight.finding else {
        return;
    };
    for summary in &mut found.summaries {
        summary.events = events.get(&summary.entity).cloned().unwrap_or_default();
    }
    let first_entity = found.first_party.as_ref().and_then(|f| f.entity);
    let related = found
        .summaries
        .iter()
        .filter(|s| Some(s.entity) != first_entity)
        .map(|s| Arc::clone(&s.events))
        .collect();
    insight.related_events = Some(RelatedEvents::Entities(related));
}

/// Each entity's share of the main thread in the context's window, and
/// the first party (the summaries' `events` left empty).
pub(crate) fn find(cx: &Context<'_>) -> Result<ThirdParties, String> {
    let network = cx.data.network_requests();
    let groups = match main_frame_main_thread(cx.analysis) {
        Some(track) => entity_self_times(cx, track, network)?,
        None => Vec::new(),
    };
    let summaries = groups
        .into_iter()
        .map(|g| EntitySummary {
            entity: g.entity,
            main_thread_time: g.self_ms,
            transfer_size: g.transfer_size,
            events: Arc::default(),
        })
        .collect();
    Ok(ThirdParties {
        summaries,
        first_party: first_party(cx),
    })
}

/// The entity of the navigation's document URL (else the main frame's):
/// a known one, else one made up for its root domain.
fn first_party(cx: &Context<'_>) -> Option<FirstParty> {
    let strings = cx.analysis.strings();
    let main_url = cx.data.meta().main_frame_url;
    let url = cx.navigation.and_then(|n| n.url).or(main_url);
    let url = url.map_or("", |u| strings.resolve(u));
    let (entity, name) = Entity::find_for_url(url, strings)?;
    Some(FirstParty { entity, name })
}

impl ThirdParties {
    /// Its members of the insight's model.
    pub(crate) fn dump(&self, model: &mut Object, cx: &mut crate::DumpCx<'_, '_>) {
        let mut names: AHashMap<Entity, String> = AHashMap::new();
        let summaries = self
            .summaries
            .iter()
            .map(|s| {
                let name = names
                    .entry(s.entity)
                    .or_insert_with(|| format!("entity:{}", s.entity.name(cx.dump.strings())))
                    .clone();
                let events = s.events.iter().map(|&e| cx.event(EventRef::Entity(e))).collect();
                Object::new()
                    .with("entity", Value::str(name))
                    .with("mainThreadTime", Value::Num(s.main_thread_time))
                    .with("transferSize", Value::Num(s.transfer_size))
                    .with("relatedEvents", Value::Array(events))
                    .into()
            })
            .collect();
        model.push("entitySummaries", Value::Array(summaries));
        let first = self.first_party.as_ref().map(|f| format!("entity:{}", f.name));
        model.push("firstPartyEntity", Value::opt(first, Value::str));
    }
}
