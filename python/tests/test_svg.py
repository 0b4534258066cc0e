"""Drawings: _repr_svg_ gives well-formed SVG (no notebook needed), and the
drawing functions agree with each other."""
import xml.etree.ElementTree as ET

import tessel

SVG = "{http://www.w3.org/2000/svg}svg"
MMA = "SM80_16x8x16_F32BF16BF16F32_TN"


def parse_svg(text):
    assert isinstance(text, str) and text
    root = ET.fromstring(text)
    assert root.tag == SVG, root.tag
    return root


def test_swizzled_layout_draws_itself():
    s = tessel.Layout("Sw<3,3,3>o((8,64):(64,1))")
    root = parse_svg(s._repr_svg_())
    labels = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    # every offset of the swizzled layout appears as a cell label
    offsets = {str(s(i)) for i in range(0, 512, 37)}
    assert offsets <= set(labels)
    # the CLI prints the SVG with a final newline; evaluate and draw return it without
    assert s._repr_svg_() == s.draw("svg") + "\n" == tessel.evaluate(str(s), format="svg") + "\n"


def test_plain_layout_draws_itself():
    parse_svg(tessel.Layout((4, 3), (3, 1))._repr_svg_())
    parse_svg(tessel.Layout("8:1")._repr_svg_())


def test_undrawable_layouts_give_none():
    assert tessel.Layout("(2,2,2):(1,2,4)")._repr_svg_() is None  # rank 3
    assert tessel.Layout((512, 512))._repr_svg_() is None  # more than MAX_DRAW_CELLS cells
    assert tessel.MAX_DRAW_CELLS == 65536


def test_tiled_mma_draws_itself():
    d = tessel.draw_mma(MMA, 2, 2, 1)
    root = parse_svg(d._repr_svg_())
    panels = {g.get("data-name") for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "panel"}
    assert panels == {"A", "B", "C"}
    assert d.svg == tessel.draw("mma", MMA, atoms="2x2x1") == tessel.draw("mma", MMA, atoms=(2, 2, 1))
    assert "2x2x1" in d.title and "128 threads" in d.title
    assert any(n.startswith("C (M,N) TV:") for n in d.notes)
    assert "T0" in d.ascii or "0/0" in d.ascii
    assert d.ascii == tessel.draw("mma", MMA, atoms="2x2x1", format="ascii")
    assert repr(d).startswith("<tessel.Drawing 'TiledMMA of " + MMA)


def test_copy_atom_and_tv_drawings():
    copy = tessel.draw_copy(tessel.Layout((16, 8), (8, 1)), "(1,8):(0,1)")
    parse_svg(copy._repr_svg_())
    assert copy.svg == tessel.draw("copy", thr="(16,8):(8,1)", val="(1,8):(0,1)")
    atom = tessel.draw_atom("ldmatrix.sync.aligned.m8n8.x4.shared.b16", "DST")
    parse_svg(atom.svg)
    assert atom.svg == tessel.draw("atom", "ldmatrix.sync.aligned.m8n8.x4.shared.b16", operand="DST")
    tv = tessel.draw_tv("((4,8),(2,2)):((32,1),(16,8))", (16, 8))
    parse_svg(tv.svg)
    assert tv.svg == tessel.draw("tv", "((4,8),(2,2)):((32,1),(16,8))", tile="16x8")
    assert MMA in tessel.draw_list() and tessel.draw("list") == tessel.draw_list()


def test_drawing_errors_carry_the_cli_message():
    try:
        tessel.draw("mma", MMA, atoms="2x2")
    except tessel.Error as e:
        assert str(e) == "--atoms takes AMxANxAK, three integers from 1 to 64 (e.g. 2x2x1); got '2x2'"
        assert e.keyword is None
    else:
        raise AssertionError("no error")
    try:
        tessel.draw_copy("(16,8):(8,1)", "(4,3)")
    except tessel.Error as e:
        assert str(e) == "--val: '(4,3)' is (4,3), not a layout"
    else:
        raise AssertionError("no error")
