//! Analysis and rendering for the brick profiler.
