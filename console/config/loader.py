"""Finding, reading, merging and checking the YAML configuration before anything starts.

A party host edits this file by hand, so every problem in it is reported at once, each on one line
that names the file, the line and the key (`FILE:LINE: key.path: what is wrong`), instead of the
console failing at the first one or, worse, half-way through a game. That is why the YAML is
composed into nodes (which remember their line) rather than loaded straight into Python values.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path as FilePath
from typing import Any, Mapping

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.resolver import Resolver

from console.config.files import InputFileError, input_name, read_bounded
from console.config.schema import (
    CONFIG_SECTION, Config, Invalid, Path, Section, cross_key_problems, describe, format_path,
    setting_paths,
)

__all__ = ["Config", "ConfigError", "load_config", "check_config_main", "ETC_PATH", "ENV_VAR",
           "packaged_default", "user_config_path", "one_line"]

ETC_PATH = "/etc/hues-console/console.yaml"
ENV_VAR = "HUES_CONFIG"
EXIT_CONFIG_ERROR = 2
# A configuration is a few dozen values four levels deep; these bounds stop alias bombs and
# self-referencing aliases from expanding without end.
MAX_DEPTH = 16
MAX_VALUES = 10_000
_TOO_LARGE = f"nested deeper than {MAX_DEPTH} levels or more than {MAX_VALUES} values"
# The packaged file, comments and all, is under 6 KB; the size is checked before the YAML is read,
# because composing a large file takes time and memory long before MAX_VALUES is reached.
MAX_CONFIG_BYTES = 64 * 1024

if getattr(yaml, "__with_libyaml__", False):
    from yaml._yaml import CParser

    class _Loader(Composer, CParser, SafeConstructor, Resolver):
        """libyaml's parser (Debian's python3-yaml and PyPI's wheels have it) under PyYAML's own
        composer: the same nodes, with their lines, in a twelfth of the time (11 ms of a 0.25 s
        start here, a tenth of a second on a Pi Zero 2 W). Not CSafeLoader: its composer
        recurses in C, and Raspberry Pi OS's libyaml 0.2.5 has no depth limit, so a 64 KB file of
        `[` crashed the process (SIGSEGV) where this composer's RecursionError is one line.
        libyaml parts from PyYAML's own parser in small ways: it refuses a lone surrogate escape
        (`"\\ud800"`) as it parses (a syntax error on that line rather than a setting's check naming
        the key) and it takes a tab before a comment or inside flow brackets, which PyYAML's own
        refuses."""

        def __init__(self, stream: bytes) -> None:
            CParser.__init__(self, stream)
            Composer.__init__(self)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)
else:
    _Loader = yaml.SafeLoader
_MAP_TAG = "tag:yaml.org,2002:map"
_SEQ_TAG = "tag:yaml.org,2002:seq"
_MERGE_TAG = "tag:yaml.org,2002:merge"
_UNREADABLE = object()  # a value whose problem is already reported; checks skip it
_KNOWN_PATHS = tuple(setting_paths())

Where = tuple[str, int | None]  # (file name, line from 1; None when no line applies)


class ConfigError(Exception):
    """The configuration cannot be used; `problems` holds one line per problem found."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = tuple(problems)


class _Problems:
    """Problem lines as they are found, each printable as it is (no line break inside one), listed
    in the order of `files` and of the lines within a file."""

    def __init__(self, files: list[str]) -> None:
        self.files = files
        self.found: list[tuple[int, int, str]] = []  # (file order, line, text) for sorting

    def add(self, where: Where, path: Path, message: str) -> None:
        file, line = where
        text = f"{file}:{line}" if line is not None else file
        if path:
            text += f": {format_path(path)}"
        text = one_line(f"{text}: {message}")
        self.found.append((self.files.index(file), line or 0, text))

    def raise_if_any(self) -> None:
        if self.found:
            raise ConfigError([text for _, _, text in sorted(self.found, key=lambda f: f[:2])])


def one_line(text: str) -> str:
    """`text` safe to print as one line: line breaks, escape sequences and other control
    characters shown escaped (`\\x1b`), so nothing read from a file or the store can move the
    terminal's cursor or split a message."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


# --- reading one file ----------------------------------------------------------------------


class _Document:
    """One YAML file as plain data, plus the line each key path was written on."""

    def __init__(self, name: str, problems: _Problems):
        self.name = name
        self.problems = problems
        self.data: dict[str, Any] | None = None  # None: the file could not be used at all
        self.lines: dict[Path, Where] = {(): (name, 1)}
        self._values = 0

    def problem(self, line: int | None, path: Path, message: str) -> None:
        self.problems.add((self.name, line), path, message)

    def read(self, source: FilePath) -> None:
        try:
            text = read_bounded(str(source), MAX_CONFIG_BYTES, "a configuration file")
        except (InputFileError, OSError) as exc:
            self.problem(None, (), str(exc) if isinstance(exc, InputFileError) else
                         f"cannot be read ({exc.strerror or exc.__class__.__name__})")
        else:
            self.parse(text)

    def parse(self, text: bytes) -> None:
        loader = None
        try:
            loader = _Loader(text)
            self._read_root(loader)
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            if exc.problem and "maximum nesting depth" in exc.problem:  # libyaml's limit, from 0.2.6 on
                self.problem(mark.line + 1 if mark else None, (), _TOO_LARGE)
                return
            detail = ", ".join(part for part in (exc.context, exc.problem) if part)
            if mark is not None and _char_at(text, mark.line, mark.column) == "\t":  # libyaml does not name it
                detail = "a tab where YAML wants spaces (indent with spaces only)"
            self.problem(mark.line + 1 if mark else None, (), f"YAML syntax error: {detail}")
        except yaml.YAMLError as exc:  # the reader's: not text in a Unicode encoding
            self.problem(None, (), f"not a YAML text file: {str(exc).splitlines()[0]}")
        except (_TooLarge, RecursionError) as exc:
            self.problem(getattr(exc, "line", None), (), _TOO_LARGE)
        except ValueError:  # PyYAML's own scanner: chr() of an escape past U+10FFFF ("\U00110000")
            mark = loader.get_mark() if loader is not None and hasattr(loader, "get_mark") else None
            self.problem(mark.line + 1 if mark else None, (),
                         "YAML syntax error: an escape names no Unicode character")
        finally:
            if loader is not None:
                loader.dispose()

    def _read_root(self, loader: yaml.SafeLoader) -> None:
        root = loader.get_single_node()
        if root is None:  # empty, or only comments: changes nothing
            self.data = {}
        elif not isinstance(root, MappingNode):
            self.problem(_line(root), (),
                         f"expected a mapping of settings (key: value lines), got {_node_kind(root)}")
        else:
            self.lines[()] = (self.name, _line(root))
            self.data = self._build(loader, root, (), 0)

    def _build(self, loader: yaml.SafeLoader, node: Node, path: Path, depth: int) -> Any:
        self._values += 1
        if depth > MAX_DEPTH or self._values > MAX_VALUES:
            raise _TooLarge(_line(node))
        if isinstance(node, ScalarNode):
            try:
                return loader.construct_object(node, deep=True)
            # PyYAML's constructors fail in their own ways on a tagged scalar they cannot read:
            # `!!bool 2` is a KeyError, an empty `!!int` an IndexError (constructor.py, construct_yaml_*).
            except (yaml.YAMLError, ValueError, TypeError, AttributeError, OverflowError, LookupError):
                self.problem(_line(node), path, f"cannot read the value {describe(node.value)} "
                                                f"(tag {node.tag})")
                return _UNREADABLE
        if node.tag not in (_MAP_TAG, _SEQ_TAG):
            self.problem(_line(node), path, f"the YAML tag {node.tag} is not supported here")
            return _UNREADABLE
        if isinstance(node, SequenceNode):
            items = []
            for index, item in enumerate(node.value):
                self.lines[path + (index,)] = (self.name, _line(item))
                items.append(self._build(loader, item, path + (index,), depth + 1))
            return items
        return self._build_mapping(loader, node, path, depth)

    def _build_mapping(self, loader: yaml.SafeLoader, node: MappingNode, path: Path, depth: int) -> Any:
        written: set[str] = set()
        for key_node, _ in node.value:
            if isinstance(key_node, ScalarNode) and key_node.tag != _MERGE_TAG:
                if key_node.value in written:
                    self.problem(_line(key_node), path + (key_node.value,), "key given twice")
                written.add(key_node.value)
        loader.flatten_mapping(node)  # resolves `<<: *anchor` merge keys in place
        mapping: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode):
                self.problem(_line(key_node), path, f"a key must be a plain name, not {_node_kind(key_node)}")
                continue
            key_path = path + (key_node.value,)
            self.lines[key_path] = (self.name, _line(key_node))
            mapping[key_node.value] = self._build(loader, value_node, key_path, depth + 1)
        return mapping


def _char_at(text: bytes, line: int, column: int) -> str:
    """The character at a parser's mark (0-based line and column), "" where there is none."""
    lines = text.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return lines[line][column] if line < len(lines) and column < len(lines[line]) else ""


class _TooLarge(Exception):
    def __init__(self, line: int):
        super().__init__(line)
        self.line = line


def _line(node: Node) -> int:
    return node.start_mark.line + 1


def _node_kind(node: Node) -> str:
    if isinstance(node, MappingNode):
        return "a mapping"
    if isinstance(node, SequenceNode):
        return "a list"
    return describe(node.value)


# --- finding, merging and checking ---------------------------------------------------------


def packaged_default() -> FilePath:
    """The default configuration shipped in the package (in a source tree, console/console.yaml
    is a link to config/console.yaml). Found beside this module rather than through
    importlib.resources, whose readers import zipfile: 5 ms of every start, for archives the
    console is never installed in."""
    return FilePath(__file__).resolve().parents[1] / "console.yaml"


def user_config_path(path: str | None, environ: Mapping[str, str], etc_path: str) -> str | None:
    """The file to merge over the default: `--config FILE`, then $HUES_CONFIG, then `etc_path` if it
    exists; None when there is none and the default stands alone."""
    if path is not None:
        return path
    if environ.get(ENV_VAR):
        return environ[ENV_VAR]
    if os.path.lexists(etc_path):
        return etc_path
    return None


def load_config(path: str | None = None, environ: Mapping[str, str] = os.environ,
                etc_path: str = ETC_PATH) -> Config:
    """The checked configuration: the packaged default with the user's file (if any) merged over it.

    Raises ConfigError listing every problem found in the files.
    """
    user_path = user_config_path(path, environ, etc_path)
    if user_path == "":
        raise ConfigError(["--config '': no file name given (an empty path)"])
    sources = [packaged_default()] + ([FilePath(user_path)] if user_path is not None else [])
    names = [input_name(str(source)) for source in sources]  # `-` (stdin) is named <stdin>
    problems = _Problems(names)
    documents = [_Document(name, problems) for name in names]
    for document, source in zip(documents, sources):
        document.read(source)
    if any(document.data is None for document in documents):
        problems.raise_if_any()  # nothing to check in a file that could not be read

    data: Any = None
    lines: dict[Path, Where] = {}
    for document in documents:
        data = document.data if data is None else _merge(data, document.data)
        lines.update(document.lines)

    def report(path: Path, message: str) -> None:
        where = next(lines[path[:n]] for n in range(len(path), -1, -1) if path[:n] in lines)
        problems.add(where, path, message)

    values: dict[Path, Any] = {}
    _check_section(CONFIG_SECTION, data, (), values, report)
    for path, message in cross_key_problems(values):
        report(path, message)
    problems.raise_if_any()
    return _assemble(CONFIG_SECTION, values, (), source=tuple(document.name for document in documents))


def _merge(base: Any, over: Any) -> Any:
    """`over` deep-merged onto `base`; an empty section (`panel:` alone) changes nothing."""
    if isinstance(base, dict) and over is None:
        return base
    if isinstance(base, dict) and isinstance(over, dict):
        merged = dict(base)
        for key, value in over.items():
            merged[key] = _merge(base[key], value) if key in base else value
        return merged
    return over


def _check_section(section: Section, data: Any, path: Path, values: dict[Path, Any], report: Any) -> None:
    """Check `data` against `section`, putting each good value in `values` by key path."""
    if not isinstance(data, dict):
        report(path, f"expected a mapping of settings, got {describe(data)}")
        return
    rules = section.key_rules()
    for key in data:
        if key not in rules:
            report(path + (key,), f"unknown key{_suggestion(key, path, rules)}")
    for name, rule in rules.items():
        key_path = path + (name,)
        if name not in data:
            report(path, f"missing key {name}")
        elif data[name] is _UNREADABLE:
            continue
        elif isinstance(rule, Section):
            _check_section(rule, data[name], key_path, values, report)
        else:
            try:
                values[key_path] = rule.convert(data[name])
            except Invalid as exc:
                for below, message in exc.problems:
                    report(key_path + below, message)


def _suggestion(key: str, path: Path, siblings: Mapping[str, Any]) -> str:
    """'; did you mean X?' from the keys beside it, or from a key of that name in another section."""
    import difflib  # only for a misspelt key: not part of every start

    close = difflib.get_close_matches(key, list(siblings), n=1)
    if close:
        return f"; did you mean {close[0]}?"
    elsewhere = [known for known in _KNOWN_PATHS if known[-1] == key and known[:-1] != path]
    if elsewhere:
        return f"; did you mean {format_path(elsewhere[0])}?"
    return ""


def _assemble(section: Section, values: dict[Path, Any], path: Path, **extra: Any) -> Any:
    arguments = dict(extra)
    for name, rule in section.key_rules().items():
        if isinstance(rule, Section):
            arguments[name] = _assemble(rule, values, path + (name,))
        else:
            arguments[name] = values[path + (name,)]
    return section.kind(**arguments)


def check_config_main(path: str | None = None, *, environ: Mapping[str, str] = os.environ,
                      etc_path: str = ETC_PATH) -> int:
    """`hues-console check-config [FILE]`: print "FILE: OK" (stdout) or every problem (stderr);
    returns the exit status, 0 or 2."""
    try:
        config = load_config(path, environ, etc_path)
    except ConfigError as exc:
        for line in exc.problems:
            print(line, file=sys.stderr)
        return EXIT_CONFIG_ERROR
    print(f"{config.source[-1]}: OK")
    return 0
