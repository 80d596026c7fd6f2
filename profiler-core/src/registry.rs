//! Link-time registry of `#[brick]` call sites, so that reports list bricks
//! that are annotated but were never called.
//!
//! Each call site adds one [`SiteRef`] through `register_site!`. On Linux
//! that is a `#[used]` static in the `profiler_sites` linker section: no code
//! runs at start-up and no function is generated per site (the cheapest
//! registration to compile); the linker gathers the statics between its
//! `__start_`/`__stop_` symbols. Elsewhere it is an `inventory` constructor.

use crate::site::{BrickSite, SiteInfo};

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

#[cfg(not(target_os = "linux"))]
fn linked() -> impl Iterator<Item = &'static SiteRef> {
    inventory::iter::<SiteRef>.into_iter()
}

#[cfg(target_os = "linux")]
fn linked() -> impl Iterator<Item = &'static SiteRef> {
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
#[must_use]
pub fn registered_sites() -> Vec<SiteInfo> {
    let mut sites: Vec<SiteInfo> = linked().map(|s| s.0.info()).collect();
    sites.sort();
    sites.dedup();
    sites
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::{BrickCategory, BrickId};

    static BUILTIN: BrickSite = BrickSite::builtin(BrickId::FFT2D, "registry", "r.rs", 7);
    crate::__profiler_register_site!(BUILTIN);

    #[test]
    fn registered_statics_are_listed_once_sorted() {
        fn uncalled() {
            static CUSTOM: BrickSite =
                BrickSite::custom("registry-test", BrickCategory::Fft, "registry", "r.rs", 9);
            crate::__profiler_register_site!(CUSTOM);
        }
        let _ = uncalled as fn();
        let sites = registered_sites();
        let ours: Vec<(&str, u32)> = sites
            .iter()
            .filter(|s| s.module_path == "registry")
            .map(|s| (s.name.as_str(), s.line))
            .collect();
        assert_eq!(ours, [("FFT2D", 7), ("registry-test", 9)]);
    }
}
