#!/usr/bin/env python3
"""Register-bank reading of a kernel's FFMAs (docs/ladder.md, the fp32 ladder).

For every FFMA of the kernel's main loop (the shortest backward-branch body
that holds at least half of the most FFMAs any loop holds) in `cuobjdump -sass` output: the source operands that
do not come from the operand reuse cache, and whether two of them sit in the
same register bank (register index mod 2: the instruction then waits a cycle
at dispatch).  An FFMA without any reuse reads three registers from two
banks and always pays.  Also counted: FFMAs whose destination is not their
accumulator operand (the allocator moving an accumulator to another
register inside the loop).
  cuobjdump -sass OBJ | python3 bench/lab/ffma_banks.py [--kernel REGEX]
"""
import re
import sys

FFMA = re.compile(r'FFMA (R\d+), (R\d+)(\.reuse)?, (R\d+)(\.reuse)?, (R\d+)(\.reuse)?')
INSN = re.compile(r'\s*/\*([0-9a-f]{4,})\*/\s+(.*?);')
BACK = re.compile(r'BRA(?:\.\S+)? (?:\S+, )?0x([0-9a-f]+)')


def stats(insns):
    n = same = bare = moved = 0
    for _, text in insns:
        m = FFMA.search(text)
        if not m:
            continue
        d, a, ra, b, rb, c, rc = m.groups()
        n += 1
        banks = [int(r[1:]) % 2 for r, flag in ((a, ra), (b, rb), (c, rc)) if not flag]
        same += len(banks) != len(set(banks))
        bare += not (ra or rb or rc)
        moved += d != c
    return n, same, bare, moved


def main():
    pattern = re.compile(sys.argv[sys.argv.index('--kernel') + 1]) if '--kernel' in sys.argv else None
    for body in re.split(r'\n\s*Function : ', sys.stdin.read())[1:]:
        name = body.split('\n')[0].strip()
        if pattern and not pattern.search(name):
            continue
        insns = [(int(m.group(1), 16), m.group(2)) for m in map(INSN.match, body.split('\n')) if m]
        loops = []
        for addr, text in insns:
            m = BACK.search(text)
            if m and int(m.group(1), 16) < addr:
                lo = int(m.group(1), 16)
                loops.append([x for x in insns if lo <= x[0] <= addr])
        # The innermost loop that holds most of the FFMAs: among the loops with at
        # least half the largest count, the shortest.
        most = max((stats(l)[0] for l in loops), default=0)
        loop = min((l for l in loops if stats(l)[0] * 2 >= most), key=len, default=[])
        n, same, bare, moved = stats(loop)
        k = max(n, 1)
        lds = sum(1 for _, t in loop if 'LDS' in t)
        regs = sorted({int(r) for r in re.findall(r'\bR(\d+)\b', body)})
        print(f'{name[:90]}\n  main loop: {n} FFMA, {lds} LDS; same-bank pair {100 * same / k:.1f} %, '
              f'no reuse {100 * bare / k:.1f} %, accumulator moved {100 * moved / k:.1f} %; '
              f'highest register R{regs[-1] if regs else 0}')


if __name__ == '__main__':
    main()
