// The "Group by" setting of the Performance panel's Call Tree and Bottom-Up,
// redone for the calltree oracle. The panel (panels/timeline TimelineTreeView,
// not in the npm package) hands TraceTree's TopDownRootNode / BottomUpRootNode
// a function from an event to its group id (`eventGroupIdCallback`); this
// module builds that function for each kind the oracle supports. What the
// trees then do with it is the engine's own code.
//
// Kinds (the panel's GroupBy values in brackets):
//   category   [Category]  the category name of the event's style, as the
//              panel's eventStyle picks it: `idle` for a JS call of the
//              `(idle)` function; `scripting` for an event of category
//              exactly `blink.console` or `blink.user_timing`; else the
//              category of the name's Styles entry (hidden ones included),
//              `other` for a name without one.
//   url        [URL]       Handlers.Helpers.getNonResolvedURL(event, data),
//              `''` when it gives null or undefined. It needs the handlers'
//              data: a `Decode Image` event's URL is that of the PaintImage
//              the ImagePainting handler ties it to (see lib/engine.mjs), a
//              request's events' that of the NetworkRequests handler.
//   domain     [Domain]    from that URL: `''` for none; `extensions::` and
//              `native ` for URLs starting so; `''` for a URL the panel's
//              URL parser rejects; `chrome-extension://HOST` for that
//              scheme; the host when it is digits and dots; else its last
//              two dot-separated labels (the whole host with one dot or none).
//   subdomain  [Subdomain] as domain, but the whole host.
//   frame      [Frame]     Helpers.Trace.frameIDForEvent(event), else the
//              main frame id of the Meta handler, else `''`.
// Not supported: [EventName] (group by activity), whose ids are the styles'
// titles as the panel's i18n renders them (the npm package's i18nString is a
// stub returning the message template), and [ThirdParties] (see
// docs/views.md, "Grouping").

import {Trace} from './trace.mjs';

/** The kinds `--group-by` accepts. */
export const GROUP_KINDS = ['none', 'category', 'url', 'domain', 'subdomain', 'frame'];

/** Whether the kind reads URLs (and so needs the ImagePainting handler's data). */
export function groupingReadsUrls(kind) {
  return kind === 'url' || kind === 'domain' || kind === 'subdomain';
}

// The shape of a URL the panel's parser (Common.ParsedURL) accepts, from its
// grammar: SCHEME://[USER@]HOST[:PORT][/PATH][?QUERY][#FRAGMENT], the whole
// string. Captures: 1 the scheme, 2 the host.
const SCHEME = '([A-Za-z][A-Za-z0-9+.-]*)://';
const USER = "(?:[A-Za-z0-9._~%!$&'()*+,;=:-]*@)?";
const HOST = '(\\[::\\d?\\]|[^\\s/:]*)';
const REST = '(?::\\d+)?(?:/[^#?]*)?(?:\\?[^#]*)?(?:#.*)?';
const URL_SHAPE = new RegExp(`^${SCHEME}${USER}${HOST}${REST}$`);

/**
 * The scheme (lower case) and host of a URL as the panel's URL parser reads
 * them, or null when the parser finds it invalid. A `blob:` URL is parsed
 * without that prefix and has the scheme `blob`.
 */
export function schemeAndHost(url) {
  const isBlob = url.startsWith('blob:');
  const m = URL_SHAPE.exec(isBlob ? url.slice('blob:'.length) : url);
  if (!m) {
    return null;
  }
  return {scheme: isBlob ? 'blob' : m[1].toLowerCase(), host: m[2]};
}

/** The last two dot-separated labels of a host (all of it with one dot or none). */
function lastTwoLabels(host) {
  const last = host.lastIndexOf('.');
  const secondLast = last > 0 ? host.lastIndexOf('.', last - 1) : -1;
  return secondLast === -1 ? host : host.slice(secondLast + 1);
}

/** The domain (or, with `subdomain`, the host) group of a URL. */
export function domainGroup(url, subdomain) {
  if (!url) {
    return '';
  }
  for (const prefix of ['extensions::', 'native ']) {
    if (url.startsWith(prefix)) {
      return prefix;
    }
  }
  const parsed = schemeAndHost(url);
  if (!parsed) {
    return '';
  }
  if (parsed.scheme === 'chrome-extension') {
    return `chrome-extension://${parsed.host}`;
  }
  if (subdomain || /^[.0-9]+$/.test(parsed.host)) {
    return parsed.host;
  }
  return lastTwoLabels(parsed.host);
}

/** The category name the panel gives an event (see the header). */
export function categoryGroup(event) {
  if (Trace.Types.Events.isProfileCall(event) && event.callFrame.functionName === '(idle)') {
    return 'idle';
  }
  if (event.cat === 'blink.console' || event.cat === 'blink.user_timing') {
    return 'scripting';
  }
  return Trace.Styles.getEventStyle(event.name)?.category.name ?? 'other';
}

/**
 * The panel's group id function for `kind` over the parsed trace's handler
 * data, or null for `none`.
 */
export function groupIdCallback(kind, data) {
  const url = event => Trace.Handlers.Helpers.getNonResolvedURL(event, data) ?? '';
  switch (kind) {
    case 'none':
      return null;
    case 'category':
      return categoryGroup;
    case 'url':
      return url;
    case 'domain':
      return event => domainGroup(url(event), false);
    case 'subdomain':
      return event => domainGroup(url(event), true);
    case 'frame':
      return event => Trace.Helpers.Trace.frameIDForEvent(event) || data.Meta.mainFrameId || '';
    default:
      throw new Error(`unknown group kind ${kind}`);
  }
}
