//! Where bricks are annotated: one [`SiteInfo`] per `#[brick]` call site,
//! with the memory level its annotation pins, if any.

use serde::{Deserialize, Serialize};

use crate::catalogue::BrickCategory;
use crate::level::BrickLevel;

/// Where a brick is annotated, as reported in a `Profile`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SiteInfo {
    /// Brick name.
    pub name: String,
    /// Category the brick's time counts under.
    pub category: BrickCategory,
    /// `module_path!()` of the annotated function.
    pub module_path: String,
    /// Source file.
    pub file: String,
    /// Line of the attribute.
    pub line: u32,
    /// The memory level the attribute pins (`level = L2`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<BrickLevel>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(level: Option<BrickLevel>) -> SiteInfo {
        SiteInfo {
            name: "Tile".into(),
            category: BrickCategory::Other,
            module_path: "m".into(),
            file: "f.rs".into(),
            line: 3,
            level,
        }
    }

    #[test]
    fn the_pinned_level_is_saved_only_when_given_and_old_files_read() {
        let json = serde_json::to_string(&site(Some(BrickLevel::L2))).unwrap();
        assert!(json.contains(r#""level":"l2""#), "{json}");
        let back: SiteInfo = serde_json::from_str(&json).unwrap();
        assert_eq!(back.level, Some(BrickLevel::L2));
        let json = serde_json::to_string(&site(None)).unwrap();
        assert!(!json.contains("level"), "{json}");
        let old = r#"{"name":"Tile","category":"Other","module_path":"m","file":"f.rs","line":3}"#;
        assert_eq!(serde_json::from_str::<SiteInfo>(old).unwrap(), site(None));
        let bad = old.replace("\"line\":3", "\"line\":3,\"level\":\"l7\"");
        assert!(serde_json::from_str::<SiteInfo>(&bad).is_err());
    }
}
