//! Why Lantern has no estimate for a navigation, in DevTools' words.

/// An error of Lantern: DevTools' message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LanternError(pub String);

impl LanternError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> LanternError {
        LanternError(message.into())
    }
}

impl std::fmt::Display for LanternError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LanternError {}
