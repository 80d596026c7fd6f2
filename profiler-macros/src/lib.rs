//! Attribute macros of the brick profiler: [`macro@brick`] times a function
//! as a brick, [`macro@trace_op`] records one trace entry per call.
//!
//! Use them through the `profiler` facade (`use profiler::{brick, trace_op};`);
//! generated code reaches the runtime only through `::profiler::__private`.
//! With the `off` feature both macros still check their arguments, then
//! emit the function unchanged.

mod ast;
mod attr;
mod catalogue;
mod contract;
mod errors;
mod expand;
mod valid;

use proc_macro::TokenStream;

/// Times every call of a function as a brick.
///
/// # Arguments
///
/// `#[brick(Name, elements = expr, bytes = expr, flops = expr, layer = expr)]`
/// or `#[brick("Custom name", category = Category, ...)]`:
///
/// - **name** (required, first): a built-in brick (`RmsNorm`, `LayerNorm`,
///   `QkvProjection`, `RopeEmbedding`, `AttentionScore`, `AttentionSoftmax`,
///   `AttentionOutput`, `OutputProjection`, `GateProjection`,
///   `UpProjection`, `Activation`, `DownProjection`, `Embedding`, `LmHead`,
///   `Sampling`, `SpMV`, `SpMM`, `FormatConvert`, `FFT1D`, `FFT2D`,
///   `LUFactorize`, `QRFactorize`, `SVDCompute`, or an alias such as `Qkv`,
///   `Rope`, `Softmax`, `SiLU`, `Gate`, `Down`, `Head`, `LU`), or a string
///   literal naming a custom brick. Call sites that share a name share one
///   set of statistics.
/// - `elements`, `bytes`, `flops`: amounts of work per call (an unsigned
///   integer or a float). The expressions may use the function's
///   parameters; they are evaluated when the call starts, and only while
///   the profiler is recording.
/// - `layer`: the layer index (an unsigned integer) the call belongs to;
///   by default the enclosing `profiler::layer` scope, if any.
/// - `category`: for custom bricks only, one of `Norm`, `Attention`, `Ffn`
///   (or `FFN`), `Other` (the default), `Sparse`, `Fft` (or `FFT`),
///   `Solver`. Built-in bricks have a fixed category.
///
/// Works on free functions, methods (any receiver), trait impls, generic,
/// `unsafe`, `extern "C"` and `async` functions. The time covers the whole
/// call, including early `return`s, `?`, and unwinding panics; for an
/// `async fn` it runs from the first poll to completion, across `.await`s,
/// and the future stays `Send` when it was. `const fn`s, bodiless trait
/// methods and items other than functions are rejected.
///
/// # Examples
///
/// ```
/// use profiler::brick;
///
/// #[brick(RmsNorm, elements = x.len(), bytes = 8 * x.len())]
/// fn rms_norm(x: &mut [f32]) {
///     let ms = x.iter().map(|v| v * v).sum::<f32>() / x.len() as f32;
///     let scale = 1.0 / (ms + 1e-6).sqrt();
///     x.iter_mut().for_each(|v| *v *= scale);
/// }
///
/// #[brick("FusedGateUp", category = Ffn, flops = 2 * rows * cols)]
/// fn fused_gate_up(rows: usize, cols: usize) -> usize {
///     rows * cols
/// }
///
/// profiler::enable();
/// rms_norm(&mut [1.0; 64]);
/// fused_gate_up(4, 8);
/// let profile = profiler::snapshot();
/// assert_eq!(profile.brick("RmsNorm").map(|b| b.total_elements), Some(64));
/// assert_eq!(profile.brick("FusedGateUp").map(|b| b.total_flops), Some(64));
/// # profiler::disable();
/// ```
///
/// # Expands to
///
/// One statement is inserted at the top of the body; the signature,
/// attributes and statements are left exactly as written:
///
/// ```ignore
/// fn rms_norm(x: &mut [f32]) {
///     let __brick_guard = {
///         static __BRICK_SITE: ::profiler::__private::BrickSite =
///             ::profiler::__private::BrickSite::builtin(
///                 ::profiler::__private::BrickId::RmsNorm,
///                 ::core::module_path!(), ::core::file!(), ::core::line!(),
///             );
///         ::profiler::__private::inventory::submit! {
///             ::profiler::__private::SiteRef(&__BRICK_SITE)
///         }
///         match ::profiler::__private::recording() {
///             ::core::option::Option::Some(__recording) => __recording.enter(
///                 &__BRICK_SITE,
///                 ::profiler::__private::Amounts {
///                     elements: ::profiler::__private::count(x.len()),
///                     bytes: ::profiler::__private::count(8 * x.len()),
///                     flops: 0,
///                     layer: ::core::primitive::u32::MAX,
///                 },
///             ),
///             ::core::option::Option::None => ::profiler::__private::BrickGuard::INERT,
///         }
///     };
///     let ms = x.iter().map(|v| v * v).sum::<f32>() / x.len() as f32;
///     // ... the rest of the body, untouched
/// }
/// ```
///
/// The guard records the sample when it is dropped, at the end of the call.
#[proc_macro_attribute]
pub fn brick(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::brick(args.into(), item.into()).into()
}

/// Records one trace entry per call: operation name, device, input shapes,
/// output shape and duration.
///
/// # Arguments
///
/// `#[trace_op]` or `#[trace_op(name = "matmul", device = expr, shapes(a, b))]`:
///
/// - `name`: the operation name (a string literal); defaults to the
///   function's name.
/// - `device`: an expression whose `Display` form names the device the
///   operation runs on (`device = self.device`, `device = "cuda:0"`).
/// - `shapes(...)`: parameters whose shapes are recorded as the input
///   shapes, in order. Each must implement `profiler::trace::TensorShape`
///   (slices, arrays, `Vec`s and references to them do; implement it for
///   your tensor type).
///
/// Expressions are evaluated when the call starts, only while the profiler
/// is recording. When the function returns a value whose type implements
/// `TensorShape`, its shape and element size become the entry's output
/// shape and memory. An early `return` (or `?`, or a panic) still records
/// the entry with its duration, but without an output shape.
///
/// Works on the same functions as [`macro@brick`], and combines with it.
///
/// # Examples
///
/// ```
/// use profiler::trace_op;
///
/// #[trace_op(name = "matmul", device = "cpu", shapes(a, b))]
/// fn matmul(a: &[f32], b: &[f32]) -> Vec<f32> {
///     a.iter().zip(b).map(|(x, y)| x * y).collect()
/// }
///
/// profiler::enable();
/// matmul(&[1.0; 6], &[2.0; 6]);
/// let trace = profiler::snapshot().trace;
/// let entry = trace.entries.iter().find(|e| e.operation == "matmul").unwrap();
/// assert_eq!(entry.input_shapes, [[6], [6]]);
/// assert_eq!(entry.output_shape, [6]);
/// assert_eq!(entry.device_id.as_deref(), Some("cpu"));
/// # profiler::disable();
/// ```
///
/// # Expands to
///
/// ```ignore
/// fn matmul(a: &[f32], b: &[f32]) -> Vec<f32> {
///     let mut __trace_op = match ::profiler::__private::recording() {
///         ::core::option::Option::Some(_) => ::profiler::__private::TraceOpGuard::start(
///             "matmul",
///             ::profiler::__private::device_id(&("cpu")),
///             ::std::vec![
///                 ::profiler::__private::input_shape(&a),
///                 ::profiler::__private::input_shape(&b),
///             ],
///         ),
///         ::core::option::Option::None => ::profiler::__private::TraceOpGuard::INERT,
///     };
///     let __trace_ret: Vec<f32> = {
///         a.iter().zip(b).map(|(x, y)| x * y).collect()
///     };
///     #[allow(unreachable_code)] // when the body diverges (`todo!()`)
///     let __trace_ret = {
///         if __trace_op.is_active() {
///             use ::profiler::__private::{OutputShapeKnown as _, OutputShapeUnknown as _};
///             __trace_op.set_output((&::profiler::__private::ShapeOf(&__trace_ret)).output_shape());
///         }
///         __trace_ret
///     };
///     __trace_ret
/// }
/// ```
///
/// Functions returning `()` (or `!`) get only the first statement. The
/// `let` names the return type unless it mentions `impl Trait`. Inner
/// attributes (`#![allow(...)]`) stay first in the body. Like
/// `tracing`'s `#[instrument]`, the expansion allows `unreachable_code` on
/// its own statements (the body may be `todo!()`), so a crate that
/// `forbid`s that lint can use `#[trace_op]` only on functions returning
/// `()`.
#[proc_macro_attribute]
pub fn trace_op(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::trace_op(args.into(), item.into()).into()
}

/// Binds a function to an equation of a YAML contract and checks the
/// equation's preconditions on entry and postconditions on exit, in debug
/// builds only.
///
/// # Arguments
///
/// `#[contract(contract_name::equation)]` or
/// `#[contract(contract_name::equation, input = expr)]`:
///
/// - `contract_name`: a shipped contract or one in the crate's own
///   `contracts/` folder, with `-` written `_`
///   (`gpu-decode-profiling-v1` is `gpu_decode_profiling_v1`).
/// - `equation`: one of its equations with preconditions or postconditions.
/// - `input`: what the conditions' `input` is bound to (by reference),
///   an expression over the parameters. Defaults to the only parameter (or
///   `self`); required when the function has several and a condition reads
///   `input`.
///
/// The return value is bound to `result` (by reference) for the
/// postconditions; `input` is evaluated again after the body for them. A
/// failed condition panics with the contract, the equation, the condition
/// and its file and line. Release builds get the function exactly as
/// written. Contract files of the crate are tracked: editing one recompiles.
///
/// # Examples
///
/// ```
/// use profiler::contract;
///
/// #[contract(roofline_model_v1::model_bytes, input = (params, bits))]
/// fn model_bytes(params: f64, bits: f64) -> f64 {
///     params * bits / 8.0
/// }
///
/// assert_eq!(model_bytes(7e9, 4.0), 3.5e9);
/// // A negative parameter count breaks a precondition (in debug builds).
/// # #[cfg(debug_assertions)]
/// assert!(std::panic::catch_unwind(|| model_bytes(-1.0, 4.0)).is_err());
/// ```
///
/// # Expands to
///
/// ```ignore
/// #[cfg(debug_assertions)]
/// fn model_bytes(params: f64, bits: f64) -> f64 {
///     #[allow(unused_variables, clippy::all, clippy::pedantic, clippy::nursery)]
///     {
///         let input = &((params, bits));
///         if !(input.0.is_finite() && input.0 >= 0.0) {
///             ::core::panic!("{}", "contract `roofline-model-v1`, equation `model_bytes`: \
///                 precondition failed: `input.0.is_finite() && input.0 >= 0.0` (...)");
///         }
///         // ... one `if` per precondition
///     }
///     let __contract_result: f64 = (|| { params * bits / 8.0 })();
///     #[allow(unused_variables, clippy::all, clippy::pedantic, clippy::nursery)]
///     {
///         let result = &__contract_result;
///         let input = &((params, bits));
///         // ... one `if` per postcondition
///     }
///     __contract_result
/// }
/// #[cfg(not(debug_assertions))]
/// fn model_bytes(params: f64, bits: f64) -> f64 {
///     params * bits / 8.0
/// }
/// ```
#[proc_macro_attribute]
pub fn contract(args: TokenStream, item: TokenStream) -> TokenStream {
    contract::contract(args.into(), item.into()).into()
}
