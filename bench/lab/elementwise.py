"""Lab: cache policies and packs per thread for the elementwise contiguous kernel (copy, f16 add), against
torch's copy_ / add in the same run. Run: cd bench/lab && python3 elementwise.py"""
import sys

import lab

COPIES = ["copy_l0_s0_p1", "copy_l1_s0_p1", "copy_l2_s0_p1", "copy_l3_s0_p1", "copy_l0_s1_p1", "copy_l2_s1_p1",
          "copy_l1_s1_p1", "copy_l2_s2_p1", "copy_l0_s0_p2", "copy_l2_s1_p2", "copy_l0_s0_p4", "copy_l2_s1_p4"]
ADDS = ["add_f16_l0_s0", "add_f16_l2_s0", "add_f16_l0_s1", "add_f16_l2_s1", "add_f16_l1_s1"]


def main():
    import torch

    module = lab.load("elementwise")
    rows = []

    def record(shape, dtype, variant, fn, check):
        row = {"shape": shape, "dtype": dtype, "variant": variant, "status": "ok"}
        try:
            fn()
            torch.cuda.synchronize()
            check()
            row.update(lab.time_us(fn))
        except Exception as error:  # noqa: BLE001 - one bad variant must not end the run
            row.update(status="error: %s" % error, p20=float("nan"), p50=float("nan"), p80=float("nan"))
        peer = lab.best_peer(shape[0], shape[1], dtype)
        row["best_peer"], row["recorded_ours"] = peer, lab.recorded_ours(shape[0], shape[1], dtype)
        rows.append(row)
        lab.print_row({**row, "shape": " ".join(shape)})

    for n, dtype in [(64 << 20, "float16"), (64 << 20, "float32"), (256 << 20, "float16"), (256 << 20, "float32")]:
        tdtype = getattr(torch, dtype)
        x = torch.randn(n, device="cuda", dtype=tdtype)
        y = torch.empty_like(x)
        packs = x.numel() * x.element_size() // 16
        label = ("copy", "%d (%dM)" % (n, n >> 20))
        record(label, dtype, "torch copy_", lambda: y.copy_(x), lambda: None)
        for name in COPIES:
            kernel = module.kernel(name)
            per_thread = int(name[-1])
            grid = (packs + 256 * per_thread - 1) // (256 * per_thread)
            y.zero_()
            record(label, dtype, name, lambda k=kernel, g=grid: k.launch(g, 256, x, y, packs),
                   lambda: lab.check(name, y, x, dtype))
        del x, y
    for n in (64 << 20, 256 << 20):
        a = torch.randn(n, device="cuda", dtype=torch.float16)
        b = torch.randn(n, device="cuda", dtype=torch.float16)
        y = torch.empty_like(a)
        packs = n // 8
        label = ("vector_add", "%d (%dM), 2 inputs" % (n, n >> 20))
        expected = (a.float() + b.float()).half()
        record(label, "float16", "torch add", lambda: torch.add(a, b, out=y), lambda: None)
        for name in ADDS:
            kernel = module.kernel(name)
            record(label, "float16", name, lambda k=kernel: k.launch((packs + 255) // 256, 256, a, b, y, packs),
                   lambda: lab.check(name, y, expected, "float16"))
        del a, b, y
    lab.save("elementwise", rows)


if __name__ == "__main__":
    if "--dry" in sys.argv:
        print(COPIES, ADDS)
    else:
        main()
