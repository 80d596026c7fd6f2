//! Where bricks are annotated: one [`SiteInfo`] per `#[brick]` call site.

use serde::{Deserialize, Serialize};

use crate::catalogue::BrickCategory;

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
}
