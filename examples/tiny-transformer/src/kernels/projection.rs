//! The six roles the one matmul kernel plays, each its own brick, so a
//! profile says "GateProjection" rather than "matmul".
//!
//! Every role is `y = x·W` with `x: m × k`, `W: k × n`; its backward runs
//! both [`matmul_backward_a`] (`dx += dy·Wᵀ`) and [`matmul_backward_b`]
//! (`dW += xᵀ·dy`). Cost: forward `2mkn` flops, backward `4mkn`.

use profiler::brick;

use super::matmul::{matmul, matmul_backward_a, matmul_backward_b};

macro_rules! projection {
    ($(#[$doc:meta])* $forward:ident / $backward:ident: $brick:ident, $backward_brick:literal, $category:ident;) => {
        $(#[$doc])*
        #[brick($brick, elements = m * n, bytes = 4 * (m * k + k * n + m * n), flops = 2 * m * k * n)]
        pub fn $forward(x: &[f32], w: &[f32], y: &mut [f32], m: usize, k: usize, n: usize) {
            matmul(x, w, y, m, k, n);
        }

        #[doc = concat!("Backward of [`", stringify!($forward), "`]: accumulates `dx` and `dw`.")]
        #[brick($backward_brick, category = $category, elements = m * k + k * n,
                bytes = 4 * (2 * m * n + 3 * m * k + 3 * k * n), flops = 4 * m * k * n)]
        #[allow(clippy::too_many_arguments)] // the shapes are the kernel's contract
        pub fn $backward(
            dy: &[f32],
            x: &[f32],
            w: &[f32],
            dx: &mut [f32],
            dw: &mut [f32],
            m: usize,
            k: usize,
            n: usize,
        ) {
            matmul_backward_a(dy, w, dx, m, k, n);
            matmul_backward_b(x, dy, dw, m, k, n);
        }
    };
}

projection! {
    /// Fused query/key/value projection, `N × D → N × 3D`.
    qkv_projection / qkv_projection_backward: QkvProjection, "QkvProjectionBackward", Attention;
}
projection! {
    /// Attention output projection, `N × D → N × D`.
    output_projection / output_projection_backward: OutputProjection, "OutputProjectionBackward", Attention;
}
projection! {
    /// FFN gate projection, `N × D → N × F`.
    gate_projection / gate_projection_backward: GateProjection, "GateProjectionBackward", Ffn;
}
projection! {
    /// FFN up projection, `N × D → N × F`.
    up_projection / up_projection_backward: UpProjection, "UpProjectionBackward", Ffn;
}
projection! {
    /// FFN down projection, `N × F → N × D`.
    down_projection / down_projection_backward: DownProjection, "DownProjectionBackward", Ffn;
}
projection! {
    /// Language-model head, `N × D → N × V`.
    lm_head / lm_head_backward: LmHead, "LmHeadBackward", Other;
}
