"""The step-through page: one self-contained HTML file that walks every backward pass.

:func:`render` takes the run's :class:`~autotrace.trace.Trace` and its
:class:`~autotrace.explain.Explanation` and writes a page with no network use at view time
(inline SVG, CSS and one small script; no CDN, no fonts fetched):

* the script's source, the line that made the current node highlighted;
* the graph (the same DOT as ``autotrace graph``, laid out by Graphviz into inline SVG),
  the current node and the edges it sends gradients along highlighted, each edge labelled
  with the gradient it carried once the step that sends it has run;
* a panel with the current step as ``explain`` shows it: node, line, rule in symbols and
  with numbers, upstream gradient, what each input receives, fan-in sums, and for
  ``AccumulateGrad`` the leaf's ``.grad`` before, increment and after;
* every leaf's ``.grad`` as it fills and accumulates across passes (2 → 4 → 6), resets
  (``zero_grad``) shown at the pass where they happened;
* ←/→ (and buttons, Home/End, PageUp/PageDown for passes) move one step; clicking a node
  (or focusing it with Tab and pressing Enter) shows its record: value, shape, dtype, saved
  tensors, inputs, grad.

The data the script needs is embedded once as JSON (the explain document, the nodes of
``run --json``); printed, the page shows every step as a list.
"""

from __future__ import annotations

import html
import json

from .. import messages
from ..messages import text

#: UI words, from the message catalog; the page's script reads them from the data
_UI_KEYS = ("html.prev", "html.next", "html.pass", "html.step", "html.of", "html.upstream", "html.rule",
            "html.numbers", "html.passes_on", "html.fan_in", "html.before", "html.increment", "html.after",
            "html.leaves", "html.none", "html.node", "html.shape", "html.dtype", "html.saved", "html.inputs",
            "html.value", "html.grad", "html.line", "html.no_passes", "html.seed", "html.reset",
            "html.click_hint", "html.failed", "html.keys")


def _json_for_script(doc) -> str:
    """JSON that is safe inside ``<script>``: no ``</``, no HTML comment openers, and
    U+2028/U+2029 escaped."""
    s = json.dumps(doc, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return (s.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def page_data(trace, ex) -> dict:
    """Everything the page's script reads: the explanation, the nodes, the leaves."""
    from ..explain import to_dict
    from . import json as render_json

    run_doc = json.loads(render_json.render(trace))
    exd = to_dict(ex)
    leaves = []
    for n in trace.nodes:
        if n.is_leaf and n.var_name and n.var_name not in leaves:
            leaves.append(n.var_name)
    for p in exd.get("passes", []):
        for s in p.get("steps", []):
            if s.get("kind") == "accumulate" and s.get("output") and s["output"] not in leaves:
                leaves.append(s["output"])
    return {
        "script": trace.script,
        "passes": exd.get("passes", []),
        "timeline": exd.get("timeline", {}),
        "final_grads": exd.get("final_grads", {}),
        "nodes": {n["id"]: n for n in run_doc.get("nodes", [])},
        "variables": run_doc.get("variables", {}),
        "leaves": leaves,
        "ui": {k.split(".", 1)[1]: text(k) for k in _UI_KEYS},
    }


def graph_svg(trace, shown_passes=()) -> str | None:
    """The graph as inline SVG markup, or None when no Graphviz is available (the page
    then says so and still steps through the passes). Every node the page steps through
    is drawn: the one pass explain shows in full when it folded a training loop, else
    every pass's graph, loop bodies not folded."""
    from . import dot, svg

    if not svg.available():
        return None
    if len(shown_passes) == 1 and len(trace.passes) > 1:
        opts = dot.GraphOptions(legend=False, title=False, pass_number=shown_passes[0], fold=False)
    else:
        opts = dot.GraphOptions(legend=False, title=False, all_passes=True, fold=False)
    source = dot.render(trace, opts)
    try:
        data = svg.render(source, "svg").decode("utf-8")
    except (svg.RenderFailed, svg.RenderUnavailable):
        return None
    start = data.find("<svg")
    return data[start:] if start >= 0 else None


def render(trace, ex, *, lang: str | None = None) -> str:
    """The whole page as a string (UTF-8 when written), its words and ``<html lang>`` in
    ``lang`` (default: the current message language)."""
    lang = lang or messages.language
    data = page_data(trace, ex)
    svg_markup = graph_svg(trace, [p["number"] for p in data["passes"]])
    src_lines = trace.source.splitlines() or [""]
    numbered = "".join(
        f'<span class="ln" id="L{i}" data-line="{i}"><span class="no">{i:>3}</span> {html.escape(line)}</span>'
        for i, line in enumerate(src_lines, 1))
    title = html.escape(text("html.title", script=trace.script))
    graph_block = (svg_markup if svg_markup is not None
                   else f'<p class="nograph">{html.escape(text("html.no_graph"))}</p>')
    printed = _print_list(data)
    folded = _fold_tables(ex)
    return _PAGE.format(
        lang=html.escape(lang), title=title, css=_CSS, js=_JS, data=_json_for_script(data),
        source=numbered, graph=graph_block, printed=printed,
        prev=html.escape(text("html.prev")), next=html.escape(text("html.next")),
        keys=html.escape(text("html.keys")), leaves=html.escape(text("html.leaves")),
        heading_source=html.escape(text("html.source")), heading_graph=html.escape(text("html.graph")),
        heading_node=html.escape(text("html.node_record")), hint=html.escape(text("html.click_hint")),
        stdout_heading=html.escape(text("heading.output")), stdout=html.escape(trace.stdout or ""),
        folded=folded,
    )


def _fold_tables(ex) -> str:
    """The numbers that change across a folded training loop (explain's fold table), as
    static tables: the page steps through the one pass explain shows in full."""
    from ..explain import to_dict

    folds = to_dict(ex).get("folds") or []
    out = []
    for f in folds:
        head = text("html.fold_heading", first=f["first"], last=f["last"], line=f.get("line") or "?")
        cols = [text("html.fold_pass"), text("html.fold_loss")]
        for leaf in f["leaves"]:
            cols += [f"‖{leaf}.grad‖", f"‖{leaf}‖"]
        rows = []
        for r in f["rows"]:
            cells = [str(r["pass_number"]), _num(r.get("loss"))]
            for g, v in zip(r.get("grads", []), r.get("values", [])):
                cells += [_num(g), _num(v)]
            rows.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>")
        out.append(f'<section class="fold"><h2>{html.escape(head)}</h2><p class="remark">{html.escape(f.get("remark") or "")}</p>'
                   '<table class="foldtable"><thead><tr>' + "".join(f"<th>{html.escape(c)}</th>" for c in cols)
                   + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table></section>")
    return "\n".join(out)


def _print_list(data) -> str:
    """Every step as static HTML, for printing and for readers without script."""
    out = []
    for p in data["passes"]:
        head = text("html.pass_heading", number=p["number"], total=len(data["passes"]),
                    statement=p.get("statement") or p.get("root") or "")
        out.append(f"<h3>{html.escape(head)}</h3><ol>")
        for s in p.get("steps", []):
            parts = [f"<b>{html.escape(s['node_name'])}</b>"]
            if s.get("line"):
                parts.append(html.escape(text("label.line", line=s["line"]) + ": " + (s.get("statement") or "")))
            for e in s.get("edges", []):
                if e.get("formula"):
                    parts.append(f"<code>{html.escape(e['formula'])}</code>")
            if s.get("kind") == "accumulate":
                parts.append(html.escape(f"{s.get('output')}.grad: {_num(s.get('before'))} + "
                                         f"{_num(s.get('increment'))} → {_num(s.get('after'))}"))
            out.append("<li>" + " · ".join(parts) + "</li>")
        out.append("</ol>")
    return "\n".join(out)


def _num(v) -> str:
    if v is None:
        return "None"
    if isinstance(v, float):
        return f"{v:.6g}"
    return json.dumps(v, ensure_ascii=False)


_PAGE = """<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>{title}</title>
<style>{css}</style>
</head>
<body>
<header><h1>{title}</h1>
<nav class="controls" aria-label="steps">
<button id="prev" type="button" aria-keyshortcuts="ArrowLeft">← {prev}</button>
<span id="where" aria-live="polite"></span>
<button id="next" type="button" aria-keyshortcuts="ArrowRight">{next} →</button>
<span class="keys">{keys}</span>
</nav></header>
<main>
<section class="source" aria-label="{heading_source}"><h2>{heading_source}</h2><pre id="source">{source}</pre>
<h2>{stdout_heading}</h2><pre id="stdout">{stdout}</pre></section>
<section class="graph" aria-label="{heading_graph}"><h2>{heading_graph}</h2><div id="graph">{graph}</div>
<p class="hint">{hint}</p></section>
<section class="panel" aria-live="polite"><div id="step"></div>
<h2>{leaves}</h2><table id="leaves"></table>
<h2>{heading_node}</h2><div id="record"></div></section>
</main>
{folded}
<section class="printed">{printed}</section>
<script type="application/json" id="autotrace-data">{data}</script>
<script>{js}</script>
</body>
</html>
"""

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI","Noto Sans","Noto Sans CJK SC","PingFang SC","Microsoft YaHei",sans-serif;margin:0;color:#222;background:#fafafa}
header{position:sticky;top:0;background:#fff;border-bottom:1px solid #ddd;padding:.5rem 1rem;z-index:2}
h1{font-size:1.1rem;margin:.2rem 0}h2{font-size:.95rem;margin:.8rem 0 .3rem}h3{font-size:.9rem}
.controls{display:flex;gap:.6rem;align-items:center;flex-wrap:wrap}
button{font:inherit;padding:.2rem .7rem;border:1px solid #888;border-radius:4px;background:#f3f3f3;cursor:pointer}
button:focus-visible,[tabindex]:focus-visible{outline:3px solid #1f6feb;outline-offset:2px}
#where{font-weight:600;min-width:14rem}.keys{color:#666;font-size:.85rem}
main{display:grid;grid-template-columns:minmax(16rem,1fr) minmax(20rem,1.4fr) minmax(18rem,1fr);gap:1rem;padding:0 1rem 1rem}
@media (max-width:900px){main{grid-template-columns:1fr}}
pre{background:#fff;border:1px solid #ddd;padding:.4rem;overflow:auto;font-size:.82rem;line-height:1.35}
.ln{display:block}.ln .no{color:#999;user-select:none}.ln.current{background:#fff3b0}
#graph svg{max-width:100%;height:auto;background:#fff;border:1px solid #ddd}
#graph g.node{cursor:pointer}
#graph g.node.current polygon,#graph g.node.current path{stroke:#c0392b;stroke-width:3}
#graph g.node.done polygon,#graph g.node.done path{stroke:#2e7d32;stroke-width:1.6}
#graph g.edge.current path{stroke:#c0392b;stroke-width:2.5}#graph g.edge.current polygon{stroke:#c0392b;fill:#c0392b}
#graph text.edgegrad{font-size:9px;fill:#b03a2e;font-family:monospace}
.panel table{border-collapse:collapse;font-size:.85rem}.panel td,.panel th{border:1px solid #ddd;padding:.15rem .4rem;text-align:left;vertical-align:top}
code,.mono{font-family:ui-monospace,Menlo,Consolas,"Noto Sans Mono CJK SC",monospace;font-size:.85rem}
.edge-row{margin:.2rem 0 .5rem .6rem}.remark{color:#555}.failed{color:#b00020;font-weight:600}
.changed{background:#e8f5e9}.hint{color:#666;font-size:.8rem}.nograph{color:#666}
.printed{display:none}
.fold{padding:0 1rem 1rem}.foldtable{border-collapse:collapse;font-size:.8rem;font-family:ui-monospace,Menlo,Consolas,monospace}
.foldtable td,.foldtable th{border:1px solid #ddd;padding:.1rem .4rem;text-align:right}
@media print{header .controls,.hint{display:none}main{display:block}.graph{page-break-inside:avoid}
.panel{display:none}.printed{display:block;padding:0 1rem}header{position:static}}
"""

_JS = r"""
(function(){
"use strict";
var D=JSON.parse(document.getElementById("autotrace-data").textContent);var U=D.ui;
var flat=[];D.passes.forEach(function(p,pi){(p.steps||[]).forEach(function(s,si){flat.push([pi,si]);});});
var pos=0;var svg=document.querySelector("#graph svg");var nodesById={},edgesByHead={};
if(svg){svg.querySelectorAll("g.node").forEach(function(g){var t=g.querySelector("title");if(!t)return;var id=t.textContent.trim();
nodesById[id]=g;g.setAttribute("tabindex","0");g.setAttribute("role","button");g.setAttribute("aria-label",id);
g.addEventListener("click",function(){showRecord(id);});g.addEventListener("keydown",function(e){if(e.key==="Enter"||e.key===" "){e.preventDefault();showRecord(id);}});});
svg.querySelectorAll("g.edge").forEach(function(g){var t=g.querySelector("title");if(!t)return;var m=t.textContent.split("->");if(m.length!==2)return;
var tail=m[0].trim(),head=m[1].trim();(edgesByHead[head]=edgesByHead[head]||[]).push({g:g,tail:tail});});}
function el(tag,cls,txt){var e=document.createElement(tag);if(cls)e.className=cls;if(txt!==undefined&&txt!==null)e.textContent=txt;return e;}
function fmt(v){if(v===null||v===undefined)return U.none;if(typeof v==="number"){return (Math.round(v*1e6)/1e6).toString();}
if(typeof v==="string")return v;return "["+v.map(fmt).join(", ")+"]";}
function short(v){var s=fmt(v);return s.length>24?s.slice(0,23)+"…":s;}
function clear(){Object.keys(nodesById).forEach(function(k){nodesById[k].classList.remove("current","done");});
if(svg){svg.querySelectorAll("g.edge.current").forEach(function(g){g.classList.remove("current");});svg.querySelectorAll("text.edgegrad").forEach(function(t){t.remove();});}
document.querySelectorAll(".ln.current").forEach(function(l){l.classList.remove("current");});}
function label(edge,val){var path=edge.g.querySelector("path");if(!path||!path.getTotalLength)return;var L=path.getTotalLength();var pt=path.getPointAtLength(L/2);
var t=document.createElementNS("http://www.w3.org/2000/svg","text");t.setAttribute("x",pt.x+4);t.setAttribute("y",pt.y);t.setAttribute("class","edgegrad");t.textContent=short(val);edge.g.parentNode.appendChild(t);}
function edgesInto(nodeId){var out=(edgesByHead[nodeId]||[]).slice();var leaf=edgesByHead[nodeId]||[];return out;}
function grads(pi,si){var g={};D.leaves.forEach(function(n){g[n]=null;});
for(var k=0;k<=pi;k++){var p=D.passes[k];Object.keys(D.timeline).forEach(function(leaf){(D.timeline[leaf]||[]).forEach(function(t){if(t.pass_number===p.number&&t.reset!==null){g[leaf]=t.before;}});});
var last=(k<pi)?(p.steps||[]).length-1:si;for(var j=0;j<=last;j++){var s=p.steps[j];if(s&&s.kind==="accumulate"&&s.after!==null&&s.after!==undefined&&p.kind!=="grad"){g[s.output]=s.after;}}}
return g;}
function row(tr,a,b){var t1=el("th",null,a);var t2=el("td","mono",b);tr.appendChild(t1);tr.appendChild(t2);}
function render(){clear();var box=document.getElementById("step");box.innerHTML="";
if(!flat.length){document.getElementById("where").textContent=U.no_passes;leafTable({});return;}
var pi=flat[pos][0],si=flat[pos][1],p=D.passes[pi],s=p.steps[si];
document.getElementById("where").textContent=U.pass+" "+p.number+" "+U.of+" "+D.passes.length+" · "+U.step+" "+(si+1)+" "+U.of+" "+p.steps.length;
var h=el("h2",null,s.node_name+(s.output?"  →  "+s.output:""));box.appendChild(h);
if(si===0&&p.seed_text){box.appendChild(el("p","remark",U.seed+": "+p.seed_text));}
if(s.line){box.appendChild(el("p","mono",U.line+" "+s.line+": "+(s.statement||"")));var ln=document.getElementById("L"+s.line);if(ln){ln.classList.add("current");}}
var tb=el("table");var tr=el("tr");row(tr,U.upstream,(s.upstream_symbol?s.upstream_symbol+" = ":"")+fmt(s.upstream));tb.appendChild(tr);box.appendChild(tb);
if(s.fan_in&&s.fan_in.length){var f=el("div","edge-row");f.appendChild(el("b",null,U.fan_in+": "));f.appendChild(el("span","mono",s.fan_in.map(function(c){return fmt(c.value)+" ("+c.from+")";}).join(" + ")));box.appendChild(f);}
(s.edges||[]).forEach(function(e){var d=el("div","edge-row");d.appendChild(el("b",null,U.passes_on+" "+(e.target||e.input)+":"));
if(e.rule)d.appendChild(el("div","mono",U.rule+": "+e.rule));if(e.numbers)d.appendChild(el("div","mono",U.numbers+": "+e.numbers));
if(e.formula)d.appendChild(el("div","mono",e.formula));else d.appendChild(el("div","mono",fmt(e.grad)));if(e.note)d.appendChild(el("div","remark",e.note));box.appendChild(d);});
if(s.kind==="accumulate"){var t2=el("table");[[U.before,s.before],[U.increment,s.increment],[U.after,s.after]].forEach(function(r){var tr=el("tr");row(tr,r[0],fmt(r[1]));t2.appendChild(tr);});box.appendChild(t2);}
if(s.remark)box.appendChild(el("p","remark",s.remark));if(s.failed)box.appendChild(el("p","failed",U.failed+(p.error?": "+p.error:"")));
for(var j=0;j<si;j++){var q=p.steps[j];if(nodesById[q.node])nodesById[q.node].classList.add("done");
(edgesByHead[q.node]||[]).forEach(function(E){var ed=(q.edges||[]).filter(function(x){return x.target_node===E.tail;})[0];if(ed&&ed.grad!==null&&ed.grad!==undefined)label(E,ed.grad);});}
if(nodesById[s.node])nodesById[s.node].classList.add("current");
(edgesByHead[s.node]||[]).forEach(function(E){E.g.classList.add("current");var ed=(s.edges||[]).filter(function(x){return x.target_node===E.tail;})[0];if(ed&&ed.grad!==null&&ed.grad!==undefined)label(E,ed.grad);});
leafTable(grads(pi,si),s.kind==="accumulate"?s.output:null);
document.getElementById("prev").disabled=(pos===0);document.getElementById("next").disabled=(pos===flat.length-1);}
function leafTable(g,changed){var t=document.getElementById("leaves");t.innerHTML="";D.leaves.forEach(function(n){var tr=el("tr",n===changed?"changed":null);row(tr,n+".grad",fmt(g[n]));t.appendChild(tr);});}
function showRecord(id){var n=D.nodes[id];var box=document.getElementById("record");box.innerHTML="";if(!n){var base=id.replace(/_(leaf|out)$/,"");n=D.nodes[base];if(!n)return;}
var t=el("table");var add=function(a,b){var tr=el("tr");row(tr,a,b);t.appendChild(tr);};
add(U.node,n.name+" ("+n.id+")");if(n.var)add("var",n.var);add(U.shape,"["+(n.shape||[]).join(", ")+"]");add(U.dtype,n.dtype||"");
if(n.line)add(U.line,n.line+": "+(n.expr||""));if(n.saved&&n.saved.length)add(U.saved,n.saved.join(", "));
add(U.inputs,(n.next_functions||[]).map(function(e){return e[0]===null?"None":e[0];}).join(", ")||"—");
var v=n.var&&D.variables[n.var];if(v){if(v.value!==undefined)add(U.value,fmt(v.value));if(v.grad!==undefined)add(U.grad,fmt(v.grad));}
box.appendChild(t);}
function go(k){if(!flat.length)return;pos=Math.max(0,Math.min(flat.length-1,k));render();}
function passJump(d){if(!flat.length)return;var pi=flat[pos][0]+d;for(var k=0;k<flat.length;k++){if(flat[k][0]===pi&&flat[k][1]===0){go(k);return;}}}
document.getElementById("prev").addEventListener("click",function(){go(pos-1);});
document.getElementById("next").addEventListener("click",function(){go(pos+1);});
document.addEventListener("keydown",function(e){if(e.target&&e.target.tagName==="INPUT")return;
if(e.key==="ArrowRight"){e.preventDefault();go(pos+1);}else if(e.key==="ArrowLeft"){e.preventDefault();go(pos-1);}
else if(e.key==="Home"){e.preventDefault();go(0);}else if(e.key==="End"){e.preventDefault();go(flat.length-1);}
else if(e.key==="PageDown"){e.preventDefault();passJump(1);}else if(e.key==="PageUp"){e.preventDefault();passJump(-1);}});
window.autotrace={go:go,position:function(){return pos;},steps:flat.length};
render();
})();
"""
