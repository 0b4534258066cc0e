"""tessel.Layout, tessel.Tiler and the operations as Python values."""
import copy
import pickle

import pytest

import tessel


def test_construction_forms_agree():
    text = tessel.Layout("(4,3):(3,1)")
    assert tessel.Layout((4, 3), (3, 1)) == text
    assert tessel.Layout([4, 3], [3, 1]) == text
    assert tessel.Layout((4, 3), tessel.LayoutRight) == text
    assert tessel.make_layout((4, 3), tessel.LayoutRight) == text
    assert tessel.Layout((4, 3)) == tessel.Layout("(4,3):(1,4)") == tessel.make_layout((4, 3))
    assert tessel.Layout((4, 3), tessel.LayoutLeft) == tessel.Layout((4, 3))
    assert tessel.Layout(8, 2) == tessel.Layout("8:2")
    assert tessel.Layout(text) == text
    assert tessel.Layout("composition((6,2):(8,2),(4,3):(3,1))") == tessel.Layout("((2,2),3):((24,2),8)")


def test_str_repr_and_accessors():
    a = tessel.Layout(((2, 2), 3), ((24, 2), 8))
    assert str(a) == "((2,2),3):((24,2),8)"
    assert repr(a) == "Layout('((2,2),3):((24,2),8)')"
    assert eval(repr(a), {"Layout": tessel.Layout}) == a
    assert a.shape == ((2, 2), 3) and a.stride == ((24, 2), 8) and a.swizzle is None
    one = tessel.Layout("(4):(1)")
    assert one.shape == (4, ) and one.stride == (1, ) and str(one) == "(4):(1)"
    assert tessel.Layout("4:1").shape == 4


def test_swizzled():
    s = tessel.Layout("Sw<3,3,3>o((8,64):(64,1))")
    assert s.swizzle == (3, 3, 3) and s.shape == (8, 64) and s.stride == (64, 1)
    assert tessel.Layout((8, 64), (64, 1), swizzle=(3, 3, 3)) == s
    assert str(s) == "Sw<3,3,3>o((8,64):(64,1))"
    assert s.size() == 512 and s.cosize() == 512
    assert s.composition(tessel.Tiler(4, 32)) == tessel.Layout("Sw<3,3,3>o((4,32):(64,1))")
    # the swizzle applies to the offset: row 1, column 0 is 64, and 64 ^ (64 >> 3 & 0b111000) = 72
    assert s(1, 0) == 64 ^ ((64 & (0b111 << 6)) >> 3)
    with pytest.raises(tessel.Error) as e:
        tessel.Layout(s, swizzle=(2, 0, 2))
    assert e.value.keyword == "type"
    with pytest.raises(tessel.Error) as e:
        tessel.Layout((8, 8), (8, 1), swizzle=(3, 0, 2))
    assert e.value.keyword == "swizzle"


def test_equality_and_hash():
    a, b = tessel.Layout((4, 3), (3, 1)), tessel.Layout("(4,3):(3,1)")
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != tessel.Layout((4, 3))
    assert a != "(4,3):(3,1)"  # a Layout is not its text


def test_eval_forms():
    a = tessel.Layout((6, 20), (20, 1))
    assert a(5) == tessel.eval(a, 5) == 100
    assert a(1, 2) == a((1, 2)) == tessel.eval(a, (1, 2)) == 22
    with pytest.raises(tessel.Error) as e:
        a(120)
    assert e.value.keyword == "coordinate-range"


def test_measures_of_tuples_and_layouts():
    assert tessel.size((3, (6, 2), 8)) == 288
    assert tessel.rank((3, (6, 2), 8)) == 3 and tessel.depth((3, (6, 2), 8)) == 2
    a = tessel.Layout("((2,2),2):((4,1),2)")
    assert (a.size(), a.rank(), a.depth(), a.cosize()) == (8, 2, 2, 8)


def test_results_are_python_values():
    assert tessel.idx2crd(7, (2, (2, 2))) == (1, (1, 1))
    assert tessel.idx2crd(1, (2, )) == (1, )
    assert tessel.crd2idx((1, 2), (4, 3), (3, 1)) == 5
    assert isinstance(tessel.size((4, 3)), int)
    assert tessel.size(9223372036854775807) == 2**63 - 1


def test_tilers():
    a = tessel.Layout((6, 20), (20, 1))
    want = tessel.Layout("((2,3),(4,5)):((20,40),(1,4))")
    assert tessel.logical_divide(a, tessel.Tiler(2, 4)) == want
    assert a.logical_divide("<2,4>") == want
    assert str(tessel.Tiler(2, None, tessel.Layout("4:2"), "_")) == "<2,_,4:2,_>"
    assert str(a.zipped_divide(tessel.Tiler(tessel.Layout("2:3"), 4))) == tessel.evaluate(
        "zipped_divide((6,20):(20,1),<2:3,4>)")
    assert str(a.logical_divide(tessel.Tiler(None, 4))) == tessel.evaluate("logical_divide((6,20):(20,1),<_,4>)")
    assert repr(tessel.Tiler(2, None)) == "Tiler(2, None)"


def test_every_operation_exists_with_its_name():
    names = ("size rank depth cosize coalesce filter composition complement right_inverse left_inverse "
             "logical_divide zipped_divide tiled_divide flat_divide logical_product zipped_product tiled_product "
             "blocked_product raked_product tile_to_shape make_layout eval idx2crd crd2idx").split()
    for name in names:
        assert callable(getattr(tessel, name)) and getattr(tessel, name).__name__ == name
        if name not in ("make_layout", "idx2crd", "crd2idx"):
            assert callable(getattr(tessel.Layout, name))
    # eval and filter are left out of `import *` (they would shadow Python's built-ins).
    assert set(names) - {"eval", "filter"} <= set(tessel.__all__)


def test_make_layout_concatenates():
    assert tessel.make_layout(tessel.Layout("4:1"), tessel.Layout("3:4")) == tessel.Layout("(4,3):(1,4)")


def test_pickle_and_copy():
    a = tessel.Layout("Sw<2,0,2>o((4,4):(4,1))")
    assert pickle.loads(pickle.dumps(a)) == a
    assert copy.deepcopy(a) == a and copy.copy(a) == a


def test_immutable():
    a = tessel.Layout("4:1")
    with pytest.raises(AttributeError):
        a.foo = 1
