#!/usr/bin/env python3
"""Writes include/tessel/arch/sm90_wgmma.inc and sm90_wgmma_fp8.inc: the wgmma.mma_async wrappers.

    python3 tools/gen/gen_wgmma.py            # rewrite the committed file
    python3 tools/gen/gen_wgmma.py --check    # exit 1 if it differs from the output
    python3 tools/gen/gen_wgmma.py --stdout   # print instead of writing

Why a generator: one wgmma instruction names every accumulator register of
the thread in its operand list (N/2 of them for m64nNk16 with f32
accumulators), and an inline-asm statement cannot take a variable number of
operands.  So each N needs its own asm statement.  They are all alike, and
are written here once, for

    N     = 8, 16, 24, ..., 256             (every shape of docs/hardware.md §7.1)
    types = f32.bf16.bf16, f32.f16.f16      (f32 accumulators)
    forms = SS (A and B through descriptors), RS (A in registers)

as explicit specializations of `tessel::arch::sm90::detail::Wgmma<Type, N>`,
declared in tessel/arch/sm90.hpp, which also holds the public entry points
(wgmma_ss / wgmma_rs) and the fences; and, in sm90_wgmma_fp8.inc, the FP8
forms m64nNk32.f32.{e4m3,e5m2}.{e4m3,e5m2} (SS only: FP8 operands are
K-major, so there are no transpose immediates) as specializations of
`detail::WgmmaFp8<TypeA, TypeB, N>`, declared in tessel/arch/sm90_wgmma_fp8.hpp
(entry point wgmma_ss_fp8).  CTest runs `--check` (test
`gen_wgmma_up_to_date`) so that the committed files always equal this output.
"""

import argparse
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
TARGET = ROOT / "include" / "tessel" / "arch" / "sm90_wgmma.inc"
TARGET_FP8 = ROOT / "include" / "tessel" / "arch" / "sm90_wgmma_fp8.inc"

TYPES = [("bf16", "bf16"), ("f16", "f16")]  # (C++ enumerator, PTX type)
FP8 = ["e4m3", "e5m2"]  # Fp8Type's enumerators, also the PTX type names
NS = list(range(8, 257, 8))


def reg_list(first, count, per_line, indent):
    """'{%first, ..., %first+count-1}' split over C string-literal lines."""
    regs = [f"%{first + i}" for i in range(count)]
    lines = []
    for i in range(0, count, per_line):
        chunk = ", ".join(regs[i:i + per_line])
        sep = ", " if i + per_line < count else ""
        lines.append(f'{indent}"{chunk}{sep}"')
    lines[0] = lines[0].replace('"', '"{', 1)
    lines[-1] = lines[-1][:-1] + '}, "'
    return lines


def operand_list(count, indent, per_line=6):
    """'"+f"(d[0]), ..., "+f"(d[count-1])' over several lines."""
    ops = [f'"+f"(d[{i}])' for i in range(count)]
    lines = []
    for i in range(0, count, per_line):
        lead = ": " if i == 0 else "  "
        lines.append(indent + lead + ", ".join(ops[i:i + per_line]) + ("," if i + per_line < count else ""))
    return lines


def gen_ss(types, k, n, trans):
    """The SS form for PTX types `types` ("bf16.bf16", "e4m3.e5m2", ...), k16 or
    k32; `trans`: with the imm-trans-a/b immediates (16-bit types only)."""
    nd = n // 2
    op_da, op_db, op_sd, op_sa, op_sb = nd, nd + 1, nd + 2, nd + 3, nd + 4
    ind = " " * 8
    params = "int ScaleA, int ScaleB, int TransA, int TransB" if trans else "int ScaleA, int ScaleB"
    imms = f"%{op_sa}, %{op_sb}, %{op_sb + 1}, %{op_sb + 2}" if trans else f"%{op_sa}, %{op_sb}"
    imm_ops = '"n"(ScaleA), "n"(ScaleB), "n"(TransA), "n"(TransB)' if trans else '"n"(ScaleA), "n"(ScaleB)'
    out = []
    out.append(f"  template <{params}>")
    out.append(f"  __device__ __forceinline__ static void ss(float (&d)[{nd}], std::uint64_t desc_a, "
               "std::uint64_t desc_b, std::uint32_t scale_d) {")
    out.append("#if TESSEL_SM90A_PTX")
    out.append("    asm volatile(")
    out.append(f'{ind}"{{\\n"')
    out.append(f'{ind}".reg .pred p;\\n"')
    out.append(f'{ind}"setp.ne.b32 p, %{op_sd}, 0;\\n"')
    out.append(f'{ind}"wgmma.mma_async.sync.aligned.m64n{n}k{k}.f32.{types} "')
    out.extend(reg_list(0, nd, 16, ind))
    out.append(f'{ind}"%{op_da}, %{op_db}, p, {imms};\\n"')
    out.append(f'{ind}"}}\\n"')
    out.extend(operand_list(nd, ind))
    out.append(f'{ind}: "l"(desc_a), "l"(desc_b), "r"(scale_d), {imm_ops});')
    out.append("#else")
    out.append("    unsupported(d, desc_a, desc_b, scale_d);")
    out.append("#endif")
    out.append("  }")
    return out


def gen_rs(cpp_type, ptx_type, n):
    nd = n // 2
    op_a = nd
    op_db, op_sd = nd + 4, nd + 5
    op_sa, op_sb, op_tb = nd + 6, nd + 7, nd + 8
    ind = " " * 8
    out = []
    out.append("  template <int ScaleA, int ScaleB, int TransB>")
    out.append(f"  __device__ __forceinline__ static void rs(float (&d)[{nd}], const std::uint32_t (&a)[4], "
               "std::uint64_t desc_b, std::uint32_t scale_d) {")
    out.append("#if TESSEL_SM90A_PTX")
    out.append("    asm volatile(")
    out.append(f'{ind}"{{\\n"')
    out.append(f'{ind}".reg .pred p;\\n"')
    out.append(f'{ind}"setp.ne.b32 p, %{op_sd}, 0;\\n"')
    out.append(f'{ind}"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{ptx_type}.{ptx_type} "')
    out.extend(reg_list(0, nd, 16, ind))
    out.append(f'{ind}"{{%{op_a}, %{op_a + 1}, %{op_a + 2}, %{op_a + 3}}}, %{op_db}, p, %{op_sa}, %{op_sb}, '
               f'%{op_tb};\\n"')
    out.append(f'{ind}"}}\\n"')
    out.extend(operand_list(nd, ind))
    out.append(f'{ind}: "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d), "n"(ScaleA), '
               '"n"(ScaleB), "n"(TransB));')
    out.append("#else")
    out.append("    unsupported(d, a, desc_b, scale_d);")
    out.append("#endif")
    out.append("  }")
    return out


def generate_fp8():
    out = []
    out.append("// tessel/arch/sm90_wgmma_fp8.inc — GENERATED by tools/gen/gen_wgmma.py; do not edit.")
    out.append("// Regenerate with `python3 tools/gen/gen_wgmma.py`; CTest (gen_wgmma_up_to_date)")
    out.append("// fails when this file and the generator's output differ.")
    out.append("//")
    out.append("// wgmma.mma_async.sync.aligned.m64nNk32.f32.{e4m3,e5m2}.{e4m3,e5m2} for every N in")
    out.append("// 8..256 (step 8), SS form: explicit specializations of detail::WgmmaFp8<A, B, N>.")
    out.append("// Included by tessel/arch/sm90_wgmma_fp8.hpp inside namespace")
    out.append("// tessel::arch::sm90::detail; use its entry point wgmma_ss_fp8.  Operands as in")
    out.append("// sm90_wgmma.inc, without the transpose immediates (FP8 A and B are K-major).")
    out.append("// clang-format off")
    for type_a in FP8:
        for type_b in FP8:
            for n in NS:
                out.append("")
                out.append("template <>")
                out.append(f"struct WgmmaFp8<Fp8Type::{type_a}, Fp8Type::{type_b}, {n}> {{")
                out.extend(gen_ss(f"{type_a}.{type_b}", 32, n, trans=False))
                out.append("};")
    out.append("// clang-format on")
    return "\n".join(out) + "\n"


def generate():
    out = []
    out.append("// tessel/arch/sm90_wgmma.inc — GENERATED by tools/gen/gen_wgmma.py; do not edit.")
    out.append("// Regenerate with `python3 tools/gen/gen_wgmma.py`; CTest (gen_wgmma_up_to_date)")
    out.append("// fails when this file and the generator's output differ.")
    out.append("//")
    out.append("// wgmma.mma_async.sync.aligned.m64nNk16.f32.{bf16,f16} for every N in 8..256")
    out.append("// (step 8), SS and RS forms: explicit specializations of detail::Wgmma<Type, N>.")
    out.append("// Included by tessel/arch/sm90.hpp inside namespace tessel::arch::sm90::detail;")
    out.append("// use the entry points wgmma_ss / wgmma_rs declared there, which document the")
    out.append("// operands, the fences and the register rule (docs/hardware.md §7.4).")
    out.append("//")
    out.append("// Operand order in each asm statement: the N/2 accumulators (\"+f\": read when")
    out.append("// scale_d is non-zero, always written), then A (descA, or the four A")
    out.append("// registers), descB, scale_d (a run-time value turned into the predicate p),")
    out.append("// and the immediates imm-scale-a, imm-scale-b, imm-trans-a")
    out.append("// (SS only), imm-trans-b.  No \"memory\" clobber: the instruction reads shared")
    out.append("// memory, but the protocol around it (fence.proxy.async + barrier before, the")
    out.append("// covering wgmma_wait, itself a \"memory\" clobber, after) already orders every")
    out.append("// generic access to that memory; a clobber here would only force reloads.")
    out.append("// clang-format off")
    for cpp_type, ptx_type in TYPES:
        for n in NS:
            out.append("")
            out.append(f"template <>")
            out.append(f"struct Wgmma<WgmmaType::{cpp_type}, {n}> {{")
            out.extend(gen_ss(f"{ptx_type}.{ptx_type}", 16, n, trans=True))
            out.append("")
            out.extend(gen_rs(cpp_type, ptx_type, n))
            out.append("};")
    out.append("// clang-format on")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with the committed file instead of writing it")
    ap.add_argument("--stdout", action="store_true", help="print the output")
    ap.add_argument("--path", type=pathlib.Path, default=TARGET, help="the .inc file (default: the committed one)")
    ap.add_argument("--path-fp8", type=pathlib.Path, default=TARGET_FP8,
                    help="the FP8 .inc file (default: the committed one)")
    args = ap.parse_args()
    outputs = [(args.path, generate(), f"{len(NS)} shapes x {len(TYPES)} types x 2 forms")]
    if args.path_fp8 is not None:
        outputs.append((args.path_fp8, generate_fp8(), f"{len(NS)} shapes x {len(FP8) ** 2} FP8 type pairs, SS"))
    if args.stdout:
        for _, text, _ in outputs:
            sys.stdout.write(text)
        return 0
    if args.check:
        stale = [path for path, text, _ in outputs if (path.read_text() if path.exists() else "") != text]
        for path in stale:
            sys.stderr.write(f"{path} differs from the output of tools/gen/gen_wgmma.py: "
                             "run `python3 tools/gen/gen_wgmma.py` and commit the result\n")
        if stale:
            return 1
        for path, _, what in outputs:
            print(f"{path.name} is up to date ({what})")
        return 0
    for path, text, _ in outputs:
        path.write_text(text)
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
