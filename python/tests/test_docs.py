"""Every Python example of the documentation runs: the `>>>` lines of
docs/python.md and README.md, and the docstrings of the package (doctest)."""
import doctest
import os

import pytest

import tessel
from conftest import ROOT


@pytest.mark.parametrize("path", ["docs/python.md", "README.md"])
def test_markdown_examples(path):
    result = doctest.testfile(os.path.join(ROOT, path), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted >= (20 if path == "docs/python.md" else 3), result


def test_docstring_examples():
    result = doctest.testmod(tessel, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted >= 3
