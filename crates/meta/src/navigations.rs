//! The page's navigations as the Meta handler gathers them: each
//! `navigationStart` by frame and by navigation id, those of the main
//! frame, the soft navigations, and the URL each navigation finally shows
//! in the address bar (after redirects and history API changes).

use tracekit_events::json::{as_f64, as_str, js_truthy, member, member_path};
use tracekit_events::{names, Context, Event, EventIndex, Id, Micros, Phase, Seconds, Skip, Sym};

use crate::Map;

/// A `navigationStart` event that DevTools keeps: one with a non-empty
/// `args.data.documentLoaderURL`, the first of its navigation id.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Navigation {
    /// The event.
    pub event: EventIndex,
    /// Its time.
    pub ts: Micros,
    /// The process of the event (the renderer that navigated).
    pub pid: Id,
    /// Its thread (that renderer's main thread).
    pub tid: Id,
    /// The frame navigated (`args.frame`; `None` when not a string).
    pub frame: Option<Sym>,
    /// `args.data.navigationId` (`None` when not a string).
    pub navigation_id: Option<Sym>,
    /// `args.data.documentLoaderURL` (`None` when not a string).
    pub url: Option<Sym>,
    /// `args.data.isOutermostMainFrame` is truthy.
    pub is_outermost_main_frame: bool,
}

/// A `SoftNavigationStart` event (a same-document navigation the browser
/// judged to be a new page).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SoftNavigation {
    /// The event.
    pub event: EventIndex,
    /// Its time.
    pub ts: Micros,
}

/// The navigations of a trace.
#[derive(Debug, Clone, Default)]
pub struct Navigations {
    /// The navigations of each frame known from `TracingStartedInBrowser`,
    /// `FrameCommittedInBrowser` or `CommitLoad`, in input order.
    pub by_frame_id: Map<Option<Sym>, Vec<Navigation>>,
    /// The same navigations, by navigation id.
    pub by_navigation_id: Map<Option<Sym>, Navigation>,
    /// The navigations of the main frame (the main frame known when the
    /// navigation started), in input order.
    pub main_frame: Vec<Navigation>,
    /// The soft navigations, by `args.context.performanceTimelineNavigationId`.
    pub soft_by_id: Map<Id, SoftNavigation>,
    /// The URL shown for each navigation id once redirects
    /// (`ResourceSendRequest` of its document) and history API changes
    /// (`DidCommitSameDocumentNavigation` of the primary main frame, up to
    /// the next hard or soft navigation) are applied; the empty id stands
    /// for the time before the first main-frame navigation. Gathered with
    /// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)
    /// only (the requests are many): empty otherwise.
    pub final_display_url: Map<Option<Sym>, Option<Sym>>,
}

/// What the Meta handler keeps of navigations while it reads the trace.
#[derive(Debug, Default)]
pub(crate) struct NavigationState {
    data: Navigations,
    /// The primary main frame's history API navigations: time and URL.
    same_document: Vec<(Micros, Option<Sym>)>,
}

fn string(raw: Option<&str>, cx: &mut Context) -> Option<Sym> {
    as_str(raw?).map(|s| cx.interner.intern(&s))
}

impl NavigationState {
    /// Reads a `navigationStart`; `main_frame` is the main frame known so
    /// far.
    pub(crate) fn navigation_start(&mut self, index: EventIndex, event: &Event<'_>, main_frame: Sym, cx: &mut Context) {
        let Some(args) = event.args else { return };
        let Some(data) = member(args, "data") else { return };
        let url_raw = member(data, "documentLoaderURL");
        if url_raw.and_then(as_str).is_some_and(|u| u.is_empty()) || !js_truthy(data) {
            return;
        }
        let navigation_id = string(member(data, "navigationId"), cx);
        if self.data.by_navigation_id.contains_key(&navigation_id) {
            // The same navigation written twice (a `javascript:` URL).
            return;
        }
        let navigation = Navigation {
            event: index,
            ts: event.ts,
            pid: event.pid,
            tid: event.tid,
            frame: string(member(args, "frame"), cx),
            navigation_id,
            url: string(url_raw, cx),
            is_outermost_main_frame: member(data, "isOutermostMainFrame").is_some_and(js_truthy),
        };
        self.data.by_navigation_id.insert(navigation_id, navigation);
        self.data.final_display_url.insert(navigation_id, navigation.url);
        self.data
            .by_frame_id
            .entry(navigation.frame)
            .or_default()
            .push(navigation);
        if navigation.frame == Some(main_frame) {
            self.data.main_frame.push(navigation);
        }
    }

    /// Reads a `SoftNavigationStart`.
    pub(crate) fn soft_navigation(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        let Some(raw) = event
            .args
            .and_then(|a| member_path(a, &["context", "performanceTimelineNavigationId"]))
        else {
            cx.diagnostics.skip(Skip::MetaUnreadableSoftNavigation, || {
                format!("SoftNavigationStart (event #{index}) without args.context")
            });
            return;
        };
        let id = match as_f64(raw) {
            Some(x) => Id::num(x),
            None => as_str(raw).map_or(Id::MISSING, |s| Id::str(cx.interner.intern(&s))),
        };
        self.data.soft_by_id.insert(
            id,
            SoftNavigation {
                event: index,
                ts: event.ts,
            },
        );
    }

    /// Reads a `ResourceSendRequest`: a redirect of a navigation's
    /// document changes the URL it shows.
    pub(crate) fn send_request(&mut self, event: &Event<'_>, cx: &mut Context) {
        let Some(data) = event.args.and_then(|a| member(a, "data")) else {
            return;
        };
        if member(data, "resourceType").and_then(as_str).as_deref() != Some("Document") {
            return;
        }
        // The navigation of this id (`None`: of none given); an id that is
        // not a string, or a string never seen, is no navigation's.
        let id = match member(data, "requestId") {
            None => None,
            Some(raw) => match as_str(raw).and_then(|r| cx.interner.lookup(&r)) {
                Some(sym) => Some(sym),
                None => return,
            },
        };
        if self.data.by_navigation_id.contains_key(&id) {
            let url = string(member(data, "url"), cx);
            self.data.final_display_url.insert(id, url);
        }
    }

    /// Reads a `RenderFrameHostImpl::DidCommitSameDocumentNavigation`.
    pub(crate) fn same_document(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        if event.ph != Phase::COMPLETE {
            return;
        }
        let Some(args) = event.args else { return };
        let Some(frame_type) = member_path(args, &["render_frame_host", "frame_type"]) else {
            if member(args, "render_frame_host").is_none() {
                cx.diagnostics.skip(Skip::MetaUnreadableSameDocumentNavigation, || {
                    format!("DidCommitSameDocumentNavigation (event #{index}) without args.render_frame_host")
                });
            }
            return;
        };
        if as_str(frame_type).as_deref() == Some("PRIMARY_MAIN_FRAME") {
            let url = string(member(args, "url"), cx);
            self.same_document.push((event.ts, url));
        }
    }

    /// The navigations, once the frames are known: those of frames no
    /// frame event named are dropped; `main_frame_url` becomes the first
    /// main-frame navigation's URL when it started within half a second
    /// of the trace; the final URLs are worked out when `final_urls`.
    pub(crate) fn finish(
        mut self,
        known_frame: impl Fn(Option<Sym>) -> bool,
        trace_start: Micros,
        main_frame_url: &mut Option<Sym>,
        final_urls: bool,
        mut on_dropped: impl FnMut(&Navigation),
    ) -> Navigations {
        let data = &mut self.data;
        let mut dropped = Vec::new();
        data.by_frame_id.retain(|frame, navigations| {
            let keep = known_frame(*frame);
            if !keep {
                navigations.iter().for_each(&mut on_dropped);
                dropped.extend(navigations.iter().map(|n| n.navigation_id));
            }
            keep
        });
        for id in dropped {
            data.by_navigation_id.shift_remove(&id);
        }
        if let Some(first) = data.main_frame.first() {
            let soon = first.ts - trace_start < Seconds(0.5).to_micros();
            let url = first.url.filter(|u| *u != names::EMPTY);
            if first.is_outermost_main_frame && url.is_some() && soon {
                *main_frame_url = url;
            }
        }
        if final_urls {
            self.apply_history();
        } else {
            self.data.final_display_url.clear();
        }
        self.data
    }

    /// The last history API navigation of each main-frame navigation (and
    /// of the time before the first), before any soft navigation, gives
    /// the URL it finally shows.
    fn apply_history(&mut self) {
        let mut soft: Vec<Micros> = self.data.soft_by_id.values().map(|s| s.ts).collect();
        soft.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        let hard = &self.data.main_frame;
        let starts = std::iter::once((Micros::ZERO, Some(names::EMPTY))).chain(
            hard.iter()
                .map(|n| (n.ts, Some(n.navigation_id.unwrap_or(names::EMPTY)))),
        );
        let ends = hard.iter().map(|n| n.ts).chain(std::iter::once(Micros(f64::INFINITY)));
        let mut updates = Vec::new();
        for ((min, key), max) in starts.zip(ends) {
            let first_soft = soft.iter().find(|&&ts| ts >= min && ts < max);
            let end = first_soft.copied().unwrap_or(max);
            let last = self.same_document.iter().rev().find(|(ts, _)| *ts >= min && *ts < end);
            if let Some((_, url)) = last {
                updates.push((key, *url));
            }
        }
        for (key, url) in updates {
            self.data.final_display_url.insert(key, url);
        }
    }
}
