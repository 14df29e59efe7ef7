#!/usr/bin/env python3
"""Writes the binary twins of the hand-written unit-cube meshes (cube.msh, cube.vtk, cube.stl): the same points and
elements, in Gmsh MSH 2.2 binary, legacy VTK BINARY (big-endian) and binary STL. Run from tests/meshes/."""
import struct

P = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]
QUADS = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]
TETS = [(0, 1, 2, 6), (0, 2, 3, 6), (0, 3, 7, 6), (0, 7, 4, 6), (0, 4, 5, 6), (0, 5, 1, 6)]
HEXA = (0, 1, 2, 3, 4, 5, 6, 7)
LINE = (0, 6)
WEDGE = (0, 1, 2, 4, 5, 6)


def msh():
    ids = [10 * (k + 1) for k in range(len(P))]  # sparse node numbers, as in cube.msh
    out = bytearray(b"$MeshFormat\n2.2 1 8\n" + struct.pack("<i", 1) + b"\n$EndMeshFormat\n")
    out += b"$Nodes\n%d\n" % len(P)
    for i, p in zip(ids, P):
        out += struct.pack("<iddd", i, *p)
    out += b"\n$EndNodes\n$Elements\n16\n"
    num = [1]

    def block(etype, elems, ntags=2):
        out.extend(struct.pack("<iii", etype, len(elems), ntags))
        for e in elems:
            out.extend(struct.pack("<i", num[0]) + struct.pack("<%di" % ntags, *range(1, ntags + 1)))
            out.extend(struct.pack("<%di" % len(e), *[ids[v] for v in e]))
            num[0] += 1

    block(15, [(0,)])
    block(3, QUADS)
    block(1, [LINE])
    block(4, TETS)
    block(5, [HEXA])
    block(6, [WEDGE])
    out += b"\n$EndElements\n"
    open("cube_bin.msh", "wb").write(out)


def vtk():
    cells = [(1, (0,))] + [(9, q) for q in QUADS] + [(3, LINE)] + [(10, t) for t in TETS] + [(12, HEXA), (13, WEDGE)]
    size = sum(1 + len(c) for _, c in cells)
    out = bytearray(b"# vtk DataFile Version 3.0\nunit cube, binary twin of cube.vtk\nBINARY\nDATASET UNSTRUCTURED_GRID\n")
    out += b"POINTS %d double\n" % len(P)
    for p in P:
        out += struct.pack(">ddd", *p)
    out += b"\nCELLS %d %d\n" % (len(cells), size)
    for _, c in cells:
        out += struct.pack(">%di" % (1 + len(c)), len(c), *c)
    out += b"\nCELL_TYPES %d\n" % len(cells)
    for t, _ in cells:
        out += struct.pack(">i", t)
    out += b"\n"
    open("cube_bin.vtk", "wb").write(out)


def stl():
    tris = [t for a, b, c, d in QUADS for t in ((a, b, c), (a, c, d))]
    out = bytearray(b"solid cube, binary (the header may say solid)".ljust(80, b" "))
    out += struct.pack("<I", len(tris))
    for t in tris:
        out += struct.pack("<3f", 0, 0, 0)
        for v in t:
            out += struct.pack("<3f", *P[v])
        out += struct.pack("<H", 0)
    open("cube_bin.stl", "wb").write(out)


msh()
vtk()
stl()
