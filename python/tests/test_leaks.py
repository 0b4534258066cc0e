"""Reference counts and memory stay flat over many Layouts and calls."""
import gc
import subprocess
import sys
import tracemalloc

import tessel


def test_refcounts_are_stable():
    a = tessel.Layout("(4,3):(3,1)")
    t = tessel.Tiler(2, 3)
    gc.collect()  # garbage of earlier tests may hold references to the class
    live = sum(isinstance(o, tessel.Layout) for o in gc.get_objects())
    before = (sys.getrefcount(a), sys.getrefcount(t), sys.getrefcount(tessel.Layout))
    for _ in range(100_000):
        tessel.Layout((4, 3), (3, 1))
    for _ in range(10_000):
        a.logical_divide(t)
        a(5)
        a.shape, a.stride, a.swizzle
        try:
            a.complement(3)
        except tessel.Error:
            pass
    gc.collect()
    assert (sys.getrefcount(a), sys.getrefcount(t), sys.getrefcount(tessel.Layout)) == before
    assert sum(isinstance(o, tessel.Layout) for o in gc.get_objects()) == live


def test_memory_does_not_grow():
    s = tessel.Layout("Sw<3,3,3>o((8,64):(64,1))")

    def work(n):
        for i in range(n):
            tessel.Layout((8, i % 64 + 1), (64, 1)).size()
            s._repr_svg_()
            try:
                tessel.evaluate("composition((4,2):(2,1),(4,3):(12,2))")
            except tessel.Error:
                pass

    work(200)
    gc.collect()
    tracemalloc.start()
    work(2000)
    gc.collect()
    first, _ = tracemalloc.get_traced_memory()
    work(2000)
    gc.collect()
    second, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert second - first < 64 * 1024, (first, second)


def test_no_instances_leak_at_exit():
    """nanobind reports instances still alive when the interpreter exits ('leaked')."""
    code = ("import tessel\n"
            "ls = [tessel.Layout((4, i + 1)) for i in range(100000)]\n"
            "d = tessel.draw_mma('SM80_16x8x16_F32BF16BF16F32_TN')\n"
            "del ls, d\n"
            "print(tessel.size((4, 3)))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "12", out.stderr
    assert "leak" not in out.stderr, out.stderr
