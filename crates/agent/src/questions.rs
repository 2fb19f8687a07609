//! The example questions DevTools suggests for each insight (fixed UI
//! text, as data), and which insights its AI texts describe.

/// Every insight key with its example questions, in DevTools' words.
const QUESTIONS: &[(&str, &[&str])] = &[
    (
        "CLSCulprits",
        &[
            "Help me optimize my CLS score",
            "How can I prevent layout shifts on this page?",
        ],
    ),
    (
        "DocumentLatency",
        &[
            "How do I decrease the initial loading time of my page?",
            "Did anything slow down the request for this document?",
        ],
    ),
    ("DOMSize", &["How can I reduce the size of my DOM?"]),
    (
        "DuplicatedJavaScript",
        &[
            "How do I deduplicate the identified scripts in my bundle?",
            "Which duplicated JavaScript modules are the most problematic?",
        ],
    ),
    (
        "FontDisplay",
        &["How can I update my CSS to avoid layout shifts caused by incorrect `font-display` properties?"],
    ),
    (
        "ForcedReflow",
        &[
            "How can I avoid forced reflows and layout thrashing?",
            "What is forced reflow and why is it problematic?",
        ],
    ),
    (
        "ImageDelivery",
        &[
            "What should I do to improve and optimize the time taken to fetch and display images on the page?",
            "Are all images on my site optimized?",
        ],
    ),
    (
        "INPBreakdown",
        &[
            "Suggest fixes for my longest interaction",
            "Why is a large INP score problematic?",
            "What's the biggest contributor to my longest interaction?",
        ],
    ),
    (
        "LCPDiscovery",
        &[
            "Suggest fixes to reduce my LCP",
            "What can I do to reduce my LCP discovery time?",
            "Why is LCP discovery time important?",
        ],
    ),
    (
        "LCPBreakdown",
        &[
            "Help me optimize my LCP score",
            "Which LCP subpart was most problematic?",
            "What can I do to reduce the LCP time for this page load?",
        ],
    ),
    (
        "NetworkDependencyTree",
        &["How do I optimize my network dependency tree?"],
    ),
    (
        "RenderBlocking",
        &[
            "Show me the most impactful render-blocking requests that I should focus on",
            "How can I reduce the number of render-blocking requests?",
        ],
    ),
    (
        "SlowCSSSelector",
        &["How can I optimize my CSS to increase the performance of CSS selectors?"],
    ),
    (
        "ThirdParties",
        &["Which third parties are having the largest impact on my page performance?"],
    ),
    (
        "Cache",
        &["What caching strategies can I apply to improve my page performance?"],
    ),
    (
        "Viewport",
        &["How do I make sure my page is optimized for mobile viewing?"],
    ),
    (
        "ModernHTTP",
        &[
            "Is my site using the best HTTP practices?",
            "Which resources are not using a modern HTTP protocol?",
        ],
    ),
    (
        "LegacyJavaScript",
        &[
            "Is my site polyfilling modern JavaScript features?",
            "How can I reduce the amount of legacy JavaScript on my page?",
        ],
    ),
    ("CharacterSet", &["How do I declare a character encoding for my page?"]),
];

/// The example questions of the insight `key` (none for a key DevTools
/// does not know).
pub fn questions(key: &str) -> &'static [&'static str] {
    QUESTIONS.iter().find(|(k, _)| *k == key).map_or(&[], |(_, q)| q)
}

/// Whether DevTools' AI texts describe the insight `key` (an insight they
/// do not describe is left out of the summary).
pub fn description_is_known(key: &str) -> bool {
    QUESTIONS.iter().any(|(k, _)| *k == key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_insight_has_questions() {
        assert_eq!(QUESTIONS.len(), 19);
        assert_eq!(questions("DOMSize"), ["How can I reduce the size of my DOM?"]);
        assert!(questions("Nope").is_empty());
        assert!(!description_is_known("Nope"));
    }
}
