//! Link-time registry of `#[brick]` call sites, so that reports list bricks
//! that are annotated but were never called.
//!
//! Every call site is a `static` [`BrickSite`] and adds one [`SiteRef`]
//! through `register_site!`. On Linux that is a `#[used]` static in the
//! `profiler_sites` linker section: no code runs at start-up and no
//! function is generated per site (the cheapest registration to compile);
//! the linker gathers the statics between its `__start_`/`__stop_` symbols.
//! Elsewhere it is an `inventory` constructor.

use std::sync::atomic::AtomicU32;

use crate::catalogue::{BrickCategory, BrickId};
use crate::level::BrickLevel;
use crate::profile::SiteInfo;

/// A site whose name has no slot yet.
pub(crate) const UNASSIGNED: u32 = u32::MAX;

/// Static metadata of one annotated call site. Built by `#[brick]`; not
/// meant to be constructed by hand.
#[derive(Debug)]
pub struct BrickSite {
    pub(crate) name: &'static str,
    pub(crate) category: BrickCategory,
    module_path: &'static str,
    file: &'static str,
    line: u32,
    /// The memory level the annotation pins (`level = L2`).
    level: Option<BrickLevel>,
    /// The slot, once assigned (`UNASSIGNED` before; see `record::site`).
    pub(crate) slot: AtomicU32,
}

impl BrickSite {
    /// A call site of a built-in brick.
    #[must_use]
    pub const fn builtin(
        id: BrickId,
        module_path: &'static str,
        file: &'static str,
        line: u32,
    ) -> Self {
        Self {
            name: id.name(),
            category: id.category(),
            module_path,
            file,
            line,
            level: None,
            slot: AtomicU32::new(id as u32),
        }
    }

    /// A call site of a custom brick named `name`.
    #[must_use]
    pub const fn custom(
        name: &'static str,
        category: BrickCategory,
        module_path: &'static str,
        file: &'static str,
        line: u32,
    ) -> Self {
        Self {
            name,
            category,
            module_path,
            file,
            line,
            level: None,
            slot: AtomicU32::new(UNASSIGNED),
        }
    }

    /// The same site, with the memory level its annotation pins.
    #[must_use]
    pub const fn with_level(mut self, level: BrickLevel) -> Self {
        self.level = Some(level);
        self
    }
    /// The site as a profile reports it.
    pub(crate) fn info(&self) -> SiteInfo {
        SiteInfo {
            name: self.name.to_owned(),
            category: self.category,
            module_path: self.module_path.to_owned(),
            file: self.file.to_owned(),
            line: self.line,
            level: self.level,
        }
    }
}

/// One registered call site (built by generated code).
#[derive(Debug)]
#[repr(transparent)]
pub struct SiteRef(pub &'static BrickSite);

/// Registers the call site in the `static` named `$site` (generated code
/// only; the static must live as long as the program, as statics do).
#[doc(hidden)]
#[macro_export]
macro_rules! __profiler_register_site {
    ($site:ident) => {
        #[cfg(target_os = "linux")]
        #[used]
        #[unsafe(link_section = "profiler_sites")]
        static __BRICK_SITE_REF: $crate::__private::SiteRef = $crate::__private::SiteRef(&$site);
        #[cfg(not(target_os = "linux"))]
        $crate::__private::inventory::submit! { $crate::__private::SiteRef(&$site) }
    };
}

#[cfg(not(target_os = "linux"))]
inventory::collect!(SiteRef);

/// Every registered call site (each once per `static`).
#[cfg(not(target_os = "linux"))]
pub(crate) fn linked() -> impl Iterator<Item = &'static SiteRef> {
    inventory::iter::<SiteRef>.into_iter()
}

/// Every registered call site (each once per `static`).
#[cfg(target_os = "linux")]
pub(crate) fn linked() -> impl Iterator<Item = &'static SiteRef> {
    // Keeps the section, and so its bounds, defined in a program without
    // any call site.
    #[used]
    #[unsafe(link_section = "profiler_sites")]
    static NO_SITE: [SiteRef; 0] = [];

    // SAFETY: the linker defines both symbols, as the bounds of the
    // `profiler_sites` section (kept alive by `NO_SITE`).
    unsafe extern "Rust" {
        #[link_name = "__start_profiler_sites"]
        static START: [SiteRef; 0];
        #[link_name = "__stop_profiler_sites"]
        static STOP: [SiteRef; 0];
    }

    let start = (&raw const START).cast::<SiteRef>();
    let stop = (&raw const STOP).cast::<SiteRef>();
    let len = (stop.addr().saturating_sub(start.addr())) / size_of::<SiteRef>();
    // SAFETY: only `register_site!` and `NO_SITE` put statics in this
    // section, all of type `SiteRef` (pointer-sized and pointer-aligned, so
    // the linker packs them without gaps), and the section is never written.
    let sites = unsafe { std::slice::from_raw_parts(start, len) };
    sites.iter()
}

/// Every `#[brick]` call site linked into the program, sorted by name and place.
pub(crate) fn registered_sites() -> Vec<SiteInfo> {
    let mut sites: Vec<SiteInfo> = linked().map(|s| s.0.info()).collect();
    sites.sort();
    sites.dedup();
    sites
}

#[cfg(test)]
mod tests {
    use super::*;

    static BUILTIN: BrickSite = BrickSite::builtin(BrickId::FFT2D, "registry", "r.rs", 7);
    crate::__profiler_register_site!(BUILTIN);

    #[test]
    fn registered_statics_are_listed_once_sorted() {
        fn uncalled() {
            static CUSTOM: BrickSite =
                BrickSite::custom("registry-test", BrickCategory::Fft, "registry", "r.rs", 9)
                    .with_level(BrickLevel::L2);
            crate::__profiler_register_site!(CUSTOM);
        }
        let _ = uncalled as fn();
        let sites = registered_sites();
        let ours: Vec<(&str, u32, Option<BrickLevel>)> = sites
            .iter()
            .filter(|s| s.module_path == "registry")
            .map(|s| (s.name.as_str(), s.line, s.level))
            .collect();
        assert_eq!(
            ours,
            [
                ("FFT2D", 7, None),
                ("registry-test", 9, Some(BrickLevel::L2))
            ]
        );
    }
}
