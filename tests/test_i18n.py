"""The Chinese edition: the catalog matches messages.EN (every key translated, placeholders
kept, .mo compiled from .po), language selection (--lang, AUTOTRACE_LANG, the locale),
golden Chinese explanations for every scenario, and switching language changes no number,
node name, code or PyTorch message."""

from __future__ import annotations

import os
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from autotrace import catalog, messages
from autotrace import explain as E
from helpers import ROOT, check_golden, run_cli

SCENARIOS = sorted((ROOT / "scenarios").glob("*.py"))


@pytest.fixture
def zh():
    messages.set_language("zh")
    yield
    messages.set_language("en")


def explain_text(path, lang, width=100):
    from rich.console import Console

    from autotrace.render import explain_console
    messages.set_language(lang)
    try:
        ex = E.explain(E.run(path.read_text(), str(path.relative_to(ROOT))))
        con = Console(no_color=True, width=width, highlight=False, record=True, file=open(os.devnull, "w"))
        explain_console.render(ex, con)
        return "\n".join(line.rstrip() for line in con.export_text().splitlines()) + "\n"
    finally:
        messages.set_language("en")


def explain_md(path, lang):
    from autotrace.render import explain_markdown
    messages.set_language(lang)
    try:
        return explain_markdown.render(E.explain(E.run(path.read_text(), str(path.relative_to(ROOT)))))
    finally:
        messages.set_language("en")


# -- the catalog ---------------------------------------------------------------------------

def test_catalog_translates_every_message_and_is_compiled():
    """Fails when a key of messages.EN has no Chinese, when its English changed since it was
    translated, when a placeholder is dropped or renamed, or when the .mo is stale.
    Fix: python -m autotrace.catalog update, then fill in the reported msgstr lines."""
    assert catalog.problems("zh") == []


def test_every_key_has_a_chinese_sentence_different_from_the_english_where_words_exist():
    messages.set_language("zh")
    try:
        same = [k for k, v in messages.EN.items()
                if isinstance(v, str) and re.search(r"[a-z]{4,} [a-z]{3,}", v) and messages.template(k) == v]
    finally:
        messages.set_language("en")
    assert same == []


def _po_with(tmp_path, key, msgstr):
    header, entries, preamble = catalog.read_po(catalog.po_path("zh"))
    entries[key].msgstr = [msgstr]
    po = tmp_path / "autotrace.po"
    catalog.write_po(str(po), header, list(entries.values()), preamble)
    mo = tmp_path / "autotrace.mo"
    mo.write_bytes(catalog.mo_bytes(header, list(entries.values())))
    return str(po), str(mo)


def test_a_dropped_or_renamed_placeholder_is_reported(tmp_path):
    po, mo = _po_with(tmp_path, "seed.scalar", "反向传播从 {rot} 开始。")
    assert catalog.problems("zh", po, mo) == ["seed.scalar: placeholders differ from the English; missing {root}; unknown {rot}"]
    po, mo = _po_with(tmp_path, "label.to", "传给")
    assert catalog.problems("zh", po, mo) == ["label.to: placeholders differ from the English; missing {target}"]


def test_an_untranslated_fuzzy_or_stale_entry_is_reported(tmp_path, monkeypatch):
    po, mo = _po_with(tmp_path, "label.why", "")
    assert catalog.problems("zh", po, mo) == ["label.why: no Chinese (Simplified) translation"]
    monkeypatch.setitem(messages.EN, "label.why", "reason")
    po, mo = _po_with(tmp_path, "label.why", "原因")
    assert catalog.problems("zh", po, mo)[0].startswith("label.why: translated from other English")
    monkeypatch.setitem(messages.EN, "new.key", "A new sentence about {leaf}.")
    assert "new.key: no entry (run python -m autotrace.catalog update)" in catalog.problems("zh", po, mo)
    Path(mo).write_bytes(b"")
    assert catalog.problems("zh", po, mo)[-1].endswith("not compiled from the .po (run python -m autotrace.catalog update)")


def test_update_adds_new_keys_marks_changed_english_fuzzy_and_compiles(tmp_path, monkeypatch):
    loc = tmp_path / "locale"
    shutil.copytree(messages.locale_dir(), loc)
    monkeypatch.setattr(messages, "locale_dir", lambda: str(loc))
    monkeypatch.setitem(messages.EN, "label.why", "the reason")
    monkeypatch.setitem(messages.EN, "zz.new", messages.Plural("{count} new leaf", "{count} new leaves"))
    todo = catalog.update("zh")
    assert [(e.key, e.fuzzy) for e in todo] == [("label.why", True), ("zz.new", False)]
    _, entries, _ = catalog.read_po(catalog.po_path("zh"))
    assert entries["label.why"].previous == "why" and entries["label.why"].msgstr == ["原因"]
    assert entries["zz.new"].msgid_plural == "{count} new leaves"
    entries["zz.new"].msgstr = ["{count} 个新叶子节点"]
    entries["label.why"].fuzzy = False
    header, _, preamble = catalog.read_po(catalog.po_path("zh"))
    catalog.write_po(catalog.po_path("zh"), header, list(entries.values()), preamble)
    assert catalog.update("zh") == []
    assert catalog.problems("zh") == []
    monkeypatch.setattr(messages, "_catalogs", {})
    messages.set_language("zh")
    try:
        assert messages.text("zz.new", count=1) == "1 个新叶子节点"
        assert messages.text("zz.new", count=3) == "3 个新叶子节点"
    finally:
        messages.set_language("en")
    assert messages.text("zz.new", count=1) == "1 new leaf"
    assert messages.text("zz.new", count=3) == "3 new leaves"


def test_the_mo_file_is_what_gnu_msgfmt_reads():
    msgunfmt = shutil.which("msgunfmt")
    if msgunfmt is None:
        pytest.skip("GNU gettext (msgunfmt) not installed")
    import subprocess
    out = subprocess.run([msgunfmt, catalog.mo_path("zh")], capture_output=True, text=True, check=True).stdout
    assert 'msgctxt "seed.scalar"' in out and "起始梯度" in out


def test_an_english_change_falls_back_to_english_not_to_a_stale_translation(monkeypatch, zh):
    monkeypatch.setitem(messages.EN, "label.why", "the reason")
    assert messages.text("label.why") == "the reason"
    monkeypatch.setitem(messages.EN, "brand.new", "Nothing translated {x}")
    assert messages.text("brand.new", x=1) == "Nothing translated 1"


GLOSSARY_VARIANTS = {
    # a term of docs/glossary-zh.md : variants the translation must not use instead
    "叶子节点": ["叶节点", "叶结点"],
    "反向传播": ["反向传递", "后向传播"],
    "梯度累加": ["梯度累积", "梯度积累"],
    "原地操作": ["就地操作", "原位操作", "in-place 操作"],
    "向量-雅可比积": ["雅可比向量积", "向量雅可比积", "VJP"],
    "计算图": ["运算图", "计算图谱"],
    "局部导数": ["本地导数", "局部梯度"],
    "上游梯度": ["上层梯度", "上游导数"],
    "标量": ["纯量"],
}


def test_translations_use_the_glossary_terms():
    _, entries, _ = catalog.read_po(catalog.po_path("zh"))
    glossary = (ROOT / "docs/glossary-zh.md").read_text()
    bad = []
    for term, variants in GLOSSARY_VARIANTS.items():
        assert term in glossary
        for e in entries.values():
            bad += [(e.key, v) for v in variants for s in e.msgstr if v in s]
    assert bad == []


# -- language selection ----------------------------------------------------------------------

@pytest.mark.parametrize("env, lang", [
    ({}, "en"),
    ({"LANG": "zh_CN.UTF-8"}, "zh"),
    ({"LANG": "en_US.UTF-8"}, "en"),
    ({"LC_ALL": "zh_TW", "LANG": "en_US"}, "zh"),
    ({"LC_MESSAGES": "zh_CN.utf8", "LANG": "en_US"}, "zh"),
    ({"LANGUAGE": "fr:zh_CN:en", "LANG": "en_US"}, "zh"),
    ({"LANGUAGE": "en:zh", "LANG": "zh_CN"}, "en"),
    ({"LANGUAGE": "", "LC_ALL": "", "LANG": "zh_CN"}, "zh"),
    ({"LC_ALL": "C", "LANG": "zh_CN"}, "en"),
    ({"LANG": "POSIX"}, "en"),
    ({"LANG": "fr_FR.UTF-8"}, "en"),
    ({"LANGUAGE": "de", "LANG": "zh_CN"}, "en"),       # gettext reads the first variable that is set
    ({"AUTOTRACE_LANG": "zh", "LANG": "en_US"}, "zh"),
    ({"AUTOTRACE_LANG": "en", "LANGUAGE": "zh"}, "en"),
    ({"AUTOTRACE_LANG": "zh-Hans"}, "zh"),
])
def test_the_language_comes_from_the_environment_as_gettext_reads_it(env, lang):
    assert messages.from_environment(env) == lang


def test_an_unknown_autotrace_lang_is_an_error():
    with pytest.raises(ValueError, match="AUTOTRACE_LANG='fr'"):
        messages.from_environment({"AUTOTRACE_LANG": "fr"})
    with pytest.raises(ValueError):
        messages.set_language("de")


POWER = ROOT / "scenarios/seed2_power_rule.py"
ZH_LINE = "反向传播从 x 开始，起始梯度 ∂x/∂x = 1"
EN_LINE = "The pass starts at x with ∂x/∂x = 1"


@pytest.mark.parametrize("args, env, want", [
    (["--lang", "zh"], {}, ZH_LINE),
    (["--lang", "en"], {"AUTOTRACE_LANG": "zh", "LANG": "zh_CN.UTF-8"}, EN_LINE),
    ([], {"AUTOTRACE_LANG": "zh", "LANG": "en_US.UTF-8"}, ZH_LINE),
    ([], {"AUTOTRACE_LANG": "", "LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": "", "LANG": "zh_CN.UTF-8"}, ZH_LINE),
    ([], {"AUTOTRACE_LANG": "", "LANGUAGE": "", "LC_ALL": "C", "LC_MESSAGES": "", "LANG": "zh_CN.UTF-8"}, EN_LINE),
])
def test_lang_option_then_autotrace_lang_then_locale(args, env, want):
    proc = run_cli("explain", POWER, "--no-color", "--width", "200", *args, env=env)
    assert proc.returncode == 0, proc.stderr
    assert want in proc.stdout


@pytest.mark.parametrize("command", ["run", "explain", "graph", "check", "ops"])
def test_every_command_takes_lang(command):
    args = {"ops": []}.get(command, [POWER])
    if command == "graph":
        args = [POWER, "--format", "dot"]
    proc = run_cli(command, *args, "--lang", "zh")
    assert proc.returncode in (0, 3), proc.stderr
    bad = run_cli(command, *args, "--lang", "xx")
    assert bad.returncode == 2
    assert "--lang xx: autotrace speaks en and zh" in bad.stderr


def test_a_bad_autotrace_lang_is_a_usage_error_unless_lang_is_given():
    bad = run_cli("explain", POWER, env={"AUTOTRACE_LANG": "klingon"})
    assert bad.returncode == 2 and "AUTOTRACE_LANG='klingon'" in bad.stderr
    assert run_cli("explain", POWER, "--lang", "en", env={"AUTOTRACE_LANG": "klingon"}).returncode == 0


# -- golden Chinese explanations --------------------------------------------------------------

@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
@pytest.mark.parametrize("kind", ["txt", "md"])
def test_golden_chinese_explain(path, kind):
    got = explain_text(path, "zh") if kind == "txt" else explain_md(path, "zh")
    check_golden(path.with_suffix(f".explain.zh.{kind}"), got)


def test_the_library_default_is_english_whatever_the_locale(monkeypatch):
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert messages.language == "en"
    assert "The pass starts at x" in explain_text(POWER, "en")


# -- switching language changes no number, name, code or PyTorch message -----------------------

NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?")
NODE = re.compile(r"\b\w+Backward\d+\b|\bAccumulateGrad\b")
_NOT_CJK = r"[^()\u2e80-\u9fff\uff00-\uffef]"
CODE = re.compile(rf"[A-Za-z_][\w.]*(?<!\w\(s)(?!\(s\))\((?:{_NOT_CJK}|\({_NOT_CJK}*\))*\)(?:\.\w+(?:\({_NOT_CJK}*\))?)*"
                  r"|\b\w+=\w+(?:\.\w+)*|\b\w+\.grad\b")


def _facts(out: str):
    prose = out.replace("（", "(").replace("）", ")")
    return Counter(NUMBER.findall(prose)), Counter(NODE.findall(prose)), set(CODE.findall(prose))


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
@pytest.mark.parametrize("kind", ["txt", "md"])
def test_switching_language_changes_no_number_name_or_code(path, kind):
    render = (lambda lang: explain_text(path, lang, width=10_000)) if kind == "txt" else (lambda lang: explain_md(path, lang))
    en, zh = render("en"), render("zh")
    if kind == "md":    # Chinese step heads code the node and the statement apart, not the words between
        en = _split_step_heads(en)
    en_numbers, en_nodes, en_code = _facts(en)
    zh_numbers, zh_nodes, zh_code = _facts(zh)
    assert zh_numbers == en_numbers
    assert zh_nodes == en_nodes
    assert zh_code == en_code
    if kind == "md":     # formulas are code spans in both languages
        formula = re.compile(r"`([^`\n]*[∂→=][^`\n]*)`")
        words = r"\b[a-z]{2,} [a-z]{2,}\b|\b(?:upstream|local|via|step|line|paths?|unchanged|training|eval|spatial)\b"    # prose, translated
        pure = lambda s: not _CJK.search(s) and not re.search(words, s)  # noqa: E731
        assert Counter(filter(pure, formula.findall(zh))) == Counter(filter(pure, formula.findall(en)))


_CJK = re.compile(r"[\u2e80-\u9fff\uff00-\uffef]")


def _split_step_heads(md: str) -> str:
    """English Markdown's "**Step 1**: `MulBackward0   line 8: y = x * 2`" as the Chinese
    edition sets it: `MulBackward0`   line 8: `y = x * 2` (and `AccumulateGrad`  →  leaf x)."""
    md = re.sub(r"(\*\*: )`(\w+)(\s+)(line \d+: )([^`]+)`", r"\1`\2`\3\4`\5`", md)
    return re.sub(r"(\*\*: )`(\w+)(\s+→[^`]*)`", r"\1`\2`\3", md)


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_pytorch_messages_and_printed_output_stay_verbatim(path):
    trace = E.run(path.read_text(), str(path.relative_to(ROOT)))
    zh = explain_text(path, "zh", width=10_000)
    for line in trace.stdout.splitlines():
        assert re.sub(r"0x[0-9a-f]+", "0x…", line).rstrip() in zh
    for p in trace.passes:
        if p.error:
            assert p.error in zh


def test_json_keeps_english_keys_and_records(tmp_path):
    en = run_cli("explain", POWER, "--json")
    zh = run_cli("explain", POWER, "--json", "--lang", "zh")
    import json
    a, b = json.loads(en.stdout), json.loads(zh.stdout)

    def keys(v):
        if isinstance(v, dict):
            return {k: keys(x) for k, x in v.items()}
        if isinstance(v, list):
            return [keys(x) for x in v]
        return None
    assert keys(a) == keys(b)
    run_en, run_zh = run_cli("run", "-e", "import os", "--json"), run_cli("run", "-e", "import os", "--json", "--lang", "zh")
    assert run_en.stdout == run_zh.stdout          # a run's record has no words of autotrace's language


# -- plurals, numbers, wrapping -----------------------------------------------------------------

def test_plurals_and_number_formats_in_both_languages():
    assert messages.text("usage.pass_range", number=3, count=1) == "--pass 3: the script ran 1 backward pass"
    assert messages.text("usage.pass_range", number=3, count=2) == "--pass 3: the script ran 2 backward passes"
    assert messages.text("graph.omitted", count=12345, total=100000, max_nodes=500) == \
        "12,345 of 100,000 nodes not shown (--max-nodes 500; nearest the outputs kept)"
    messages.set_language("zh")
    try:
        assert messages.text("usage.pass_range", number=3, count=1) == "--pass 3：脚本只运行了 1 次反向传播"
        assert messages.text("usage.pass_range", number=3, count=2) == "--pass 3：脚本只运行了 2 次反向传播"
        assert messages.text("graph.omitted", count=12345, total=100000, max_nodes=500) == \
            "100,000 个节点中有 12,345 个未画出（--max-nodes 500；保留离输出最近的节点）"
    finally:
        messages.set_language("en")


def test_a_dropped_number_format_is_reported(tmp_path):
    po, mo = _po_with(tmp_path, "graph.omitted", "{total} 个节点中有 {count} 个未画出（--max-nodes {max_nodes}）")
    assert catalog.problems("zh", po, mo) == ["graph.omitted: placeholders differ from the English; missing {count:,}, {total:,}; unknown {count}, {total}"]


def test_chinese_wraps_between_characters_and_never_before_closing_punctuation():
    from rich.cells import cell_len
    from rich.text import Text

    from autotrace.render.explain_console import _wrap_cjk
    messages.set_language("zh")
    try:
        s = messages.text("diag.error.scalar.fix", root="y")
    finally:
        messages.set_language("en")
    for width in range(24, 90, 7):
        lines = [t.plain for t in _wrap_cjk(Text(s), width)]
        assert "".join(lines).replace(" ", "") == s.replace(" ", "")
        for line in lines:
            assert cell_len(line) <= width or " " not in line and not re.search(r"[\u4e00-\u9fff]", line)
        for line in lines[1:]:
            assert line[0] not in "，。：；、）"
    assert "y.backward(gradient=torch.ones_like(y))" in "".join(lines)


def test_help_stays_english():
    proc = run_cli("explain", "--help", "--lang", "zh")
    assert proc.returncode == 0 and "Explain the backward pass" in proc.stdout and "--lang" in proc.stdout


def test_rule_words_come_from_the_op_table_and_keep_the_symbols():
    from autotrace import ops
    ops.load()
    texts = [v for op in ops.OPS.values() for d in (op.local or {}, op.vjp or {}) for v in d.values() if v]
    for key, source in messages.EN.items():
        if key.startswith("words.") and "{" not in source:
            assert any(source in t for t in texts), key
    messages.set_language("zh")
    try:
        for t in texts:
            zh = messages.rule_words(t)
            assert Counter(NUMBER.findall(zh)) == Counter(NUMBER.findall(t)), (t, zh)
        assert messages.rule_words("∂loss/∂p = zeros(p.sizes()) with ∂loss/∂(p[0]) at [0] along dim 0   "
                                   "(1 at the selected index, 0 elsewhere)") == \
            "∂loss/∂p = zeros(p.sizes())，在 dim 0 的 [0] 处放入 ∂loss/∂(p[0])   (选中的索引处为 1，其余位置为 0)"
    finally:
        messages.set_language("en")
    assert messages.rule_words("1 at the selected index, 0 elsewhere") == "1 at the selected index, 0 elsewhere"


# -- diff, the step-through page, --expect, graph and run in Chinese ------------------------

GRAPH_SCRIPTS = ROOT / "tests" / "graph_scripts"
# two English words in a row, once code, node names and the script's own lines are removed
_ENGLISH = re.compile(r"\b[A-Za-z]{3,} [a-z]{2,}\b")


def _english_left(out: str, *sources: str) -> list[str]:
    """The English phrases of ``out`` that are not code, a node name, a formula or a line
    of one of the scripts ``sources`` (which stay verbatim)."""
    lines = {ln.strip() for s in sources for ln in s.splitlines() if ln.strip()}
    prose = out.replace("（", "(").replace("）", ")")
    kept = []
    for ln in prose.splitlines():
        for src in lines:
            ln = ln.replace(src, " ")
        ln = re.sub(r"\b\w+(?:Error|Warning): .*", " ", ln)     # PyTorch's own message, verbatim
        ln = CODE.sub(" ", re.sub(r"`[^`]*`", " ", ln))
        kept.append(ln)
    return _ENGLISH.findall("\n".join(kept))


def _both(*args):
    en, zh = run_cli(*args, "--lang", "en"), run_cli(*args, "--lang", "zh")
    assert en.returncode == zh.returncode, zh.stderr
    return en, zh


def _same_facts(en: str, zh: str):
    words = {"dimension(s)", "pass(es)"}          # English plural marks, not code
    en_numbers, en_nodes, en_code = _facts(en)
    zh_numbers, zh_nodes, zh_code = _facts(zh.replace("（", " (").replace("）", ") "))
    en_code -= words
    assert zh_numbers == en_numbers
    assert zh_nodes == en_nodes
    assert zh_code == en_code


DIFFS = sorted((ROOT / "scenarios" / "diff").glob("*.a.py"))


@pytest.mark.parametrize("a", DIFFS, ids=lambda p: p.name.split(".")[0])
def test_diff_in_chinese(a):
    b = a.with_name(a.name.replace(".a.py", ".b.py"))
    en, zh = _both("diff", a, b, "--width", "10000")
    assert _CJK.search(zh.stdout)
    assert _english_left(zh.stdout, a.read_text(), b.read_text()) == []
    assert _english_left(en.stdout, a.read_text(), b.read_text()) != []
    _same_facts(en.stdout, zh.stdout)


EXPECTS = sorted((ROOT / "scenarios" / "expect").glob("*.py"))


@pytest.mark.parametrize("path", EXPECTS, ids=lambda p: p.stem)
def test_explain_expect_in_chinese(path):
    formulas = [ln for ln in path.with_suffix(".expect").read_text().splitlines() if ln.strip()]
    args = ["explain", path, "--width", "10000"] + [x for f in formulas for x in ("--expect", f)]
    en, zh = _both(*args)
    section = zh.stdout[zh.stdout.index("你的梯度公式"):]
    assert re.search(r"\d+ 个公式中有 \d+ 个成立", section)
    assert _english_left(section, path.read_text(), *formulas) == []
    assert "Your gradient formulas" in en.stdout
    _same_facts(en.stdout[en.stdout.index("Your gradient formulas"):], section)


def test_the_step_through_page_in_chinese(tmp_path):
    import json as _json
    script = ROOT / "scenarios" / "seed2_grad_accumulation.py"
    pages = {}
    for lang in ("en", "zh"):
        out = tmp_path / f"{lang}.html"
        proc = run_cli("html", script, "-o", out, "--lang", lang)
        assert proc.returncode == 0, proc.stderr
        pages[lang] = out.read_text()
    assert '<html lang="zh">' in pages["zh"] and '<html lang="en">' in pages["en"]
    assert re.search(r"<title>[^<]*seed2_grad_accumulation.py 的反向传播</title>", pages["zh"])
    data = lambda page: _json.loads(re.search(r'<script type="application/json" id="autotrace-data">(.*?)</script>',  # noqa: E731
                                              page, re.S).group(1))
    ui = data(pages["zh"])["ui"]
    assert ui["prev"] == "上一步" and ui["upstream"] == "上游梯度" and ui["rule"] == "局部导数"
    for key, english in messages.EN.items():
        if key.startswith("html.") and " " in english and "{" not in english:
            assert english not in pages["zh"], key
            assert html_escape(english) in pages["en"] or english in pages["en"] or key in _HTML_UNUSED, key
    # the steps the page walks are explain's, in the page's language, with the same numbers
    en_steps, zh_steps = data(pages["en"])["passes"], data(pages["zh"])["passes"]
    assert [s["node"] for p in zh_steps for s in p["steps"]] == [s["node"] for p in en_steps for s in p["steps"]]
    assert _facts(_json.dumps(zh_steps, ensure_ascii=False))[0] == _facts(_json.dumps(en_steps, ensure_ascii=False))[0]


_HTML_UNUSED = {"html.no_graph", "html.no_passes"}     # shown only without Graphviz / without a pass


def html_escape(s):
    import html
    return html.escape(s)


def _dot_texts(source: str) -> str:
    """The words of a DOT file's labels and tooltips, unescaped, one per line."""
    import html
    out = []
    for m in re.finditer(r'(?:label|tooltip)=(<.*?>|"(?:[^"\\]|\\.)*")(?= |\]|$)', source, re.M):
        v = re.sub(r"<[^<>]*>", "\n", m.group(1).strip('"<>'))
        out.append(html.unescape(v))
    return "\n".join(out)


@pytest.mark.parametrize("args", [["--values"], ["--depth", "1"], ["--pass", "1"], ["--saved", "--values"]],
                         ids=lambda a: " ".join(a))
@pytest.mark.parametrize("name", ["rnn30.py", "train50.py"])
def test_graph_labels_and_legend_in_chinese(name, args):
    path = GRAPH_SCRIPTS / name
    en, zh = _both("graph", path, "--format", "dot", "-o", "-", *args)
    en_t, zh_t = _dot_texts(en.stdout), _dot_texts(zh.stdout)
    assert "图例" in zh_t and "legend" in en_t
    assert _english_left(zh_t, path.read_text()) == []
    _same_facts(en_t, zh_t)


@pytest.mark.parametrize("name", ["rnn30.py", "train50.py"])
def test_mermaid_in_chinese(name):
    path = GRAPH_SCRIPTS / name
    en, zh = _both("graph", path, "--format", "mermaid", "-o", "-", "--values")
    import html
    words = lambda s: "\n".join(html.unescape(m) for m in re.findall(r'"([^"]*)"', s)).replace("<br>", "\n")  # noqa: E731
    assert _english_left(words(zh.stdout), path.read_text()) == []
    _same_facts(words(en.stdout), words(zh.stdout))


@pytest.mark.parametrize("args", [[], ["--depth", "2"]], ids=["default", "depth2"])
@pytest.mark.parametrize("path", [GRAPH_SCRIPTS / "rnn30.py", GRAPH_SCRIPTS / "train50.py",
                                  ROOT / "scenarios" / "seed2_grad_accumulation.py"], ids=lambda p: p.stem)
def test_run_tables_and_trees_in_chinese(path, args):
    en, zh = _both("run", path, "--no-color", "--width", "200", *args)
    assert "值和梯度" in zh.stdout and "grad_fn 链" in zh.stdout
    report = zh.stdout[zh.stdout.index("张量"):]
    assert _english_left(report, path.read_text()) == []
    _same_facts(en.stdout[en.stdout.index("tensors"):], report)


def test_graph_usage_errors_and_notes_in_chinese(tmp_path):
    power = ROOT / "scenarios" / "seed2_power_rule.py"
    proc = run_cli("graph", power, "-o", tmp_path / "g.svg", "--format", "png", "--lang", "zh")
    assert proc.returncode == 2 and "后缀 .svg 表示 SVG，而 --format 指定的是 PNG" in proc.stderr
    proc = run_cli("graph", power, "-o", tmp_path / "g.svg", "--depth", "0", "--lang", "zh")
    assert proc.returncode == 2 and "--depth N 从 1 开始计数" in proc.stderr
    proc = run_cli("graph", power, "-o", tmp_path / "g.svg", "--pass", "4", "--lang", "zh")
    assert proc.returncode == 2 and "--pass 4：脚本只运行了 1 次反向传播" in proc.stderr
    proc = run_cli("graph", power, "-o", tmp_path / "g.svg", "--of", "A", "--lang", "zh")
    en = run_cli("graph", power, "-o", tmp_path / "g.svg", "--of", "A")
    assert proc.returncode == en.returncode
