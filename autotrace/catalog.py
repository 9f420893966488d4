"""The message catalog's maintenance: :data:`autotrace.messages.EN` → ``.pot`` → ``.po`` → ``.mo``.

One command keeps the translations in step with the English table::

    python -m autotrace.catalog update     # write the .pot, merge it into each .po, compile the .mo
    python -m autotrace.catalog check      # exit 1 and list what is missing, stale or broken

``update`` adds an empty entry for a new key, keeps a translation whose English is
unchanged, marks one whose English changed ``#, fuzzy`` (with the old English as ``#|
msgid``, so the translator sees what changed), drops entries of removed keys, and compiles
the ``.mo`` from the entries that are translated and not fuzzy (GNU ``msgfmt`` semantics:
anything else falls back to English at run time). Fill in the ``msgstr`` lines of the
``.po`` it reports, remove the fuzzy flags you reviewed, and run ``update`` again.

The files are standard gettext (keys as ``msgctxt``, English as ``msgid``), so Poedit,
``msgfmt --check`` or Babel read them too; this module needs only the standard library and
is never imported when autotrace runs.
"""

from __future__ import annotations

import ast
import os
import string
import struct
import sys
from dataclasses import dataclass, field

from . import messages
from .messages import EN, Plural

TRANSLATIONS = ("zh",)
PLURAL_FORMS = {"zh": "nplurals=1; plural=0;"}
LANGUAGE_NAMES = {"zh": "Chinese (Simplified)"}


@dataclass
class Entry:
    key: str
    msgid: str
    msgid_plural: str | None = None
    msgstr: list = field(default_factory=lambda: [""])
    fuzzy: bool = False
    previous: str | None = None          # the English a fuzzy translation was made for
    comments: list = field(default_factory=list)   # translator comments ("# ...")

    @property
    def translated(self) -> bool:
        return all(s != "" for s in self.msgstr)


def pot_path() -> str:
    return os.path.join(messages.locale_dir(), f"{messages.DOMAIN}.pot")


def po_path(lang: str) -> str:
    return os.path.join(messages.locale_dir(), lang, "LC_MESSAGES", f"{messages.DOMAIN}.po")


def mo_path(lang: str) -> str:
    return po_path(lang)[:-3] + ".mo"


def source_entries() -> list[Entry]:
    """The English table as catalog entries, in the table's order."""
    out = []
    for key, src in EN.items():
        if isinstance(src, Plural):
            out.append(Entry(key, src.one, src.other, ["", ""]))
        else:
            out.append(Entry(key, src))
    return out


# -- .po reading and writing ---------------------------------------------------------------

def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t").replace("\n", "\\n") + '"'


def _field(name: str, value: str) -> list[str]:
    if "\n" in value.rstrip("\n") or len(value) > 70:
        parts = value.splitlines(keepends=True)
        return [f'{name} ""'] + [_quote(p) for p in parts]
    return [f"{name} {_quote(value)}"]


def write_po(path: str, header: str, entries: list[Entry], comment: list[str]) -> None:
    lines = [f"# {c}" if c else "#" for c in comment]
    lines += ['msgid ""', 'msgstr ""'] + [_quote(h + "\n") for h in header.rstrip("\n").split("\n")] + [""]
    for e in entries:
        lines += [f"# {c}" if c else "#" for c in e.comments]
        if e.fuzzy:
            lines.append("#, fuzzy")
        if e.previous is not None:
            lines.append("#| msgid " + _quote(e.previous))
        lines += _field("msgctxt", e.key)
        lines += _field("msgid", e.msgid)
        if e.msgid_plural is not None:
            lines += _field("msgid_plural", e.msgid_plural)
            for i, s in enumerate(e.msgstr):
                lines += _field(f"msgstr[{i}]", s)
        else:
            lines += _field("msgstr", e.msgstr[0])
        lines.append("")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines))


def read_po(path: str) -> tuple[str, dict[str, Entry], list[str]]:
    """(header, entries by key, the file's leading comment lines)."""
    header, entries, preamble = "", {}, []
    with open(path, encoding="utf-8") as f:
        blocks = f.read().split("\n\n")
    for n, block in enumerate(blocks):
        fields: dict[str, str] = {}
        cur = None
        e = Entry("", "")
        comments = []
        for raw in block.split("\n"):
            line = raw.strip()
            if not line:
                continue
            if line.startswith("#,"):
                e.fuzzy = "fuzzy" in line
            elif line.startswith("#| msgid "):
                e.previous = ast.literal_eval(line[len("#| msgid "):])
            elif line.startswith("#"):
                comments.append(line[2:] if line.startswith("# ") else "")
            elif line.startswith('"'):
                fields[cur] += ast.literal_eval(line)
            else:
                cur, _, rest = line.partition(" ")
                fields[cur] = ast.literal_eval(rest)
        if "msgid" not in fields:
            continue
        if "msgctxt" not in fields and fields["msgid"] == "":
            header, preamble = fields.get("msgstr", ""), comments
            continue
        e.key, e.msgid = fields.get("msgctxt", ""), fields["msgid"]
        e.comments = comments
        if "msgid_plural" in fields:
            e.msgid_plural = fields["msgid_plural"]
            e.msgstr = [fields[k] for k in sorted((k for k in fields if k.startswith("msgstr[")),
                                                  key=lambda k: int(k[7:-1]))]
        else:
            e.msgstr = [fields.get("msgstr", "")]
        entries[e.key] = e
    return header, entries, preamble


# -- .mo -----------------------------------------------------------------------------------

def mo_bytes(header: str, entries: list[Entry]) -> bytes:
    """The GNU .mo file of the translated, non-fuzzy ``entries`` (what ``msgfmt`` writes,
    without the optional hash table)."""
    pairs = {b"": header.encode("utf-8")}
    for e in entries:
        if e.fuzzy or not e.translated:
            continue
        orig = e.key + "\x04" + e.msgid + ("\x00" + e.msgid_plural if e.msgid_plural is not None else "")
        pairs[orig.encode("utf-8")] = "\x00".join(e.msgstr).encode("utf-8")
    keys = sorted(pairs)
    n = len(keys)
    ids = strs = b""
    offsets = []
    for k in keys:
        offsets.append((len(ids), len(k), len(strs), len(pairs[k])))
        ids += k + b"\x00"
        strs += pairs[k] + b"\x00"
    start_ids = 7 * 4 + 16 * n
    start_strs = start_ids + len(ids)
    table = []
    for o_id, l_id, o_str, l_str in offsets:
        table.append((l_id, start_ids + o_id, l_str, start_strs + o_str))
    out = struct.pack("Iiiiiii", 0x950412DE, 0, n, 7 * 4, 7 * 4 + 8 * n, 0, 0)
    out += b"".join(struct.pack("ii", a, b) for a, b, _, _ in table)
    out += b"".join(struct.pack("ii", c, d) for _, _, c, d in table)
    return out + ids + strs


# -- placeholders --------------------------------------------------------------------------

def placeholders(template: str) -> set[tuple]:
    """The ``{name!conv:spec}`` fields of a template (raises ValueError when it does not parse)."""
    out = set()
    for _, name, spec, conv in string.Formatter().parse(template):
        if name is not None:
            out.add((name, conv or "", spec or ""))
    return out


def _field_text(f: tuple) -> str:
    name, conv, spec = f
    return "{" + name + (f"!{conv}" if conv else "") + (f":{spec}" if spec else "") + "}"


def problems(lang: str, po: str | None = None, mo: str | None = None) -> list[str]:
    """Everything that keeps the ``lang`` catalog (``po``/``mo``, by default the package's)
    from matching :data:`EN`: keys without an entry or translation, entries made for other
    English, fuzzy flags, placeholders dropped, added or renamed, and a ``.mo`` not compiled
    from the ``.po``. Empty when all is well."""
    out = []
    po = po or po_path(lang)
    mo = mo or mo_path(lang)
    try:
        header, have, _ = read_po(po)
    except FileNotFoundError:
        return [f"{po}: missing"]
    for src in source_entries():
        e = have.get(src.key)
        if e is None:
            out.append(f"{src.key}: no entry (run python -m autotrace.catalog update)")
            continue
        if e.msgid != src.msgid or e.msgid_plural != src.msgid_plural:
            out.append(f"{src.key}: translated from other English (run python -m autotrace.catalog update)")
            continue
        if e.fuzzy:
            out.append(f"{src.key}: fuzzy (the English changed; review the translation, remove the flag)")
        if not e.translated:
            out.append(f"{src.key}: no {LANGUAGE_NAMES.get(lang, lang)} translation")
            continue
        try:
            want = placeholders(src.msgid) | (placeholders(src.msgid_plural) if src.msgid_plural else set())
            for s in e.msgstr:
                got = placeholders(s)
                if got != want:
                    lost, extra = sorted(map(_field_text, want - got)), sorted(map(_field_text, got - want))
                    out.append(f"{src.key}: placeholders differ from the English"
                               + (f"; missing {', '.join(lost)}" if lost else "")
                               + (f"; unknown {', '.join(extra)}" if extra else ""))
        except ValueError as exc:
            out.append(f"{src.key}: the translation is not a valid template ({exc})")
    for key in have:
        if key not in EN:
            out.append(f"{key}: entry for a key messages.EN no longer has (run python -m autotrace.catalog update)")
    try:
        with open(mo, "rb") as f:
            compiled = f.read()
    except FileNotFoundError:
        compiled = None
    if compiled != mo_bytes(header, list(have.values())):
        out.append(f"{mo}: not compiled from the .po (run python -m autotrace.catalog update)")
    return out


# -- update --------------------------------------------------------------------------------

POT_HEADER = (
    "Project-Id-Version: autotrace\n"
    "MIME-Version: 1.0\n"
    "Content-Type: text/plain; charset=UTF-8\n"
    "Content-Transfer-Encoding: 8bit\n"
)


def _header(lang: str) -> str:
    return POT_HEADER + f"Language: {lang}\nPlural-Forms: {PLURAL_FORMS[lang]}\n"


def update(lang: str) -> list[Entry]:
    """Merge :data:`EN` into the ``lang`` catalog and compile it; the entries still untranslated or fuzzy."""
    src = source_entries()
    try:
        _, have, preamble = read_po(po_path(lang))
    except FileNotFoundError:
        have, preamble = {}, []
    merged = []
    for s in src:
        old = have.get(s.key)
        e = Entry(s.key, s.msgid, s.msgid_plural, [""] * (1 if lang == "zh" else len(s.msgstr)))
        if old is not None:
            e.comments = old.comments
            e.msgstr = old.msgstr if len(old.msgstr) == len(e.msgstr) else e.msgstr
            if old.msgid != s.msgid or old.msgid_plural != s.msgid_plural:
                if old.translated:
                    e.fuzzy, e.previous = True, old.previous if old.fuzzy and old.previous else old.msgid
            else:
                e.fuzzy, e.previous = old.fuzzy, old.previous
        merged.append(e)
    header = _header(lang)
    write_po(po_path(lang), header, merged, preamble or [f"{LANGUAGE_NAMES.get(lang, lang)} messages of autotrace."])
    with open(mo_path(lang), "wb") as f:
        f.write(mo_bytes(header, merged))
    return [e for e in merged if e.fuzzy or not e.translated]


def write_pot() -> None:
    write_po(pot_path(), POT_HEADER, source_entries(),
             ["Messages of autotrace, extracted from autotrace/messages.py (EN).",
              "Do not edit: run python -m autotrace.catalog update."])


def main(argv=None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    cmd = args[0] if args else "update"
    if cmd == "update":
        write_pot()
        status = 0
        for lang in TRANSLATIONS:
            todo = update(lang)
            print(f"{os.path.relpath(po_path(lang))}: {len(EN) - len(todo)} of {len(EN)} messages translated")
            for e in todo:
                print(f"  {'fuzzy' if e.fuzzy else 'untranslated'}: {e.key}")
            status |= bool(todo)
        return status
    if cmd == "check":
        bad = [f"{lang}: {p}" for lang in TRANSLATIONS for p in problems(lang)]
        print("\n".join(bad) if bad else f"catalogs up to date ({len(EN)} messages)")
        return 1 if bad else 0
    print("usage: python -m autotrace.catalog [update|check]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
