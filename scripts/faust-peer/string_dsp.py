#!/usr/bin/env python3
"""Writes the Faust mi.lib program of the benchmark string (Python 3 standard library only).

    python3 scripts/faust-peer/string_dsp.py N > string.dsp

The string is the one `hooke bench --string N` times: N masses of 1e-3 kg in a line between two
fixed points, N + 1 identical spring-dampers of K = 230400 N/m and Z = 4.8e-3 N s/m, run at
48 kHz; mass N / 2 (counting from 0) starts displaced by 1e-3 m at rest, and the program's one
output is that mass's position.

mi.lib works in per-sample units: its masses step x[n+1] = 2 x[n] - x[n-1] + F[n] / m, and its
spring-dampers push with F = -k (x1 - x2) - z ((x1 - x1') - (x2 - x2')), x' being the previous
sample. With h = 1 / rate, m = M, k = K h^2 and z = Z h give the same motion as symplectic Euler
in SI units (velocity v[n] = (x[n] - x[n-1]) / h), which is what Hooke runs.

The physical values are also written as `declare` metadata, so that the timing harness
(timer.cpp) reads them from the compiled program and checks its output against its own
symplectic-Euler loop.
"""
import sys

MASS = 1e-3  # kg
STIFFNESS = 230400.0  # N/m
DAMPING = 4.8e-3  # N s/m
RATE = 48000.0  # Hz
DISPLACEMENT = 1e-3  # m


def program(n):
    h = 1.0 / RATE
    moved = n // 2  # the displaced and observed mass, from 0, as in `hooke bench`
    # Points along the line: 0 and n + 1 are the fixed ends, 1..n the masses; link j joins
    # point j and point j + 1.
    points = n + 2
    links = n + 1
    d = repr(DISPLACEMENT)

    def element(p):
        if p == 0 or p == points - 1:
            return "mi.ground(0.0)"
        if p == moved + 1:
            # At rest: the position one sample earlier equals the starting position.
            return f"mi.mass(m, 0.0, {d}, {d})"
        return "mi.mass(m, 0.0, 0.0, 0.0)"

    def link(j):
        # mi.lib adds a link end's starting value to that end's first position difference
        # x - x', where x' (a delay line) starts at 0 while the mass starts at its displaced
        # position: the displaced mass's ends start at -d, so that it starts at rest (found
        # against symplectic Euler; timer.cpp checks it on every run).
        ends = ["0.0", "0.0"]
        if j == moved + 1:
            ends[0] = f"-{d}"
        if j + 1 == moved + 1:
            ends[1] = f"-{d}"
        return f"mi.springDamper(k, z, {ends[0]}, {ends[1]})"

    position_names = ", ".join(f"x{p}" for p in range(points))
    link_inputs = ", ".join(f"x{j}, x{j + 1}" for j in range(links))
    force_names = ", ".join(f"a{j}, b{j}" for j in range(links))
    # Point p feels the second end of link p - 1 and the first end of link p.
    totals = ["a0"] + [f"b{p - 1} + a{p}" for p in range(1, points - 1)] + [f"b{links - 1}"]

    lines = [
        f"// The benchmark string of Hooke's Faust peer, {n} masses: written by",
        "// scripts/faust-peer/string_dsp.py; do not edit.",
        'import("stdfaust.lib");',
        "",
        f'declare peer_masses "{n}";',
        f'declare peer_mass "{MASS!r}";',
        f'declare peer_stiffness "{STIFFNESS!r}";',
        f'declare peer_damping "{DAMPING!r}";',
        f'declare peer_rate "{RATE!r}";',
        f'declare peer_displacement "{DISPLACEMENT!r}";',
        f'declare peer_observed "{moved}";',
        "",
        "// per-sample parameters",
        f"m = {MASS!r};",
        f"k = {STIFFNESS * h * h!r};",
        f"z = {DAMPING * h!r};",
        "",
        f"// {points} points (the ends and the masses): forces in, positions out",
        "points = " + ",\n  ".join(element(p) for p in range(points)) + ";",
        "",
        "// each link gets the positions of its two points, and the observed position passes by",
        f"toLinks({position_names}) = {link_inputs}, x{moved + 1};",
        "",
        f"// {links} links: two positions in, the forces on their two ends out",
        "links = " + ",\n  ".join(link(j) for j in range(links)) + ", _;",
        "",
        "// each point gets the sum of the forces of the links that touch it",
        f"toPoints({force_names}, y) = {', '.join(totals)}, y;",
        "",
        "// the forces go back to the points one sample later; only the observed position leaves",
        f"process = (points : toLinks : links : toPoints) ~ par(i, {points}, _) : par(i, {points}, !), _;",
    ]
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) != 2 or not sys.argv[1].isdigit() or int(sys.argv[1]) < 1:
        sys.exit("usage: string_dsp.py N   (N >= 1 masses; the program goes to standard output)")
    sys.stdout.write(program(int(sys.argv[1])))


if __name__ == "__main__":
    main()
