"""``autotrace html``: the step-through page, in a real headless browser.

The page for the seed article's accumulation example (three passes: w.grad 2 → 4 → 6) is
loaded from a file with no network: no console errors, no request but the file itself;
stepping with the keyboard moves the highlighted node and the panel to exactly the next
step of ``explain --json``, and the leaves table shows the engine's ``.grad`` values.
"""

from __future__ import annotations

import json

import pytest

from browser import browser
from helpers import ROOT, SCENARIOS, run_cli

ACC = SCENARIOS / "seed2_grad_accumulation.py"


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    out = tmp_path_factory.mktemp("html") / "page.html"
    proc = run_cli("html", ACC, "-o", out)
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture(scope="module")
def explained():
    return json.loads(run_cli("explain", ACC, "--json").stdout)


@pytest.fixture(scope="module")
def driver():
    d = browser()
    yield d
    d.quit()


def _steps(ex):
    return [(p, s) for p in ex["passes"] for s in p["steps"]]


def test_page_is_self_contained(page):
    import re

    text = page.read_text(encoding="utf-8")
    assert "<svg" in text and "<script>" in text and "<style>" in text
    # XML namespace names are identifiers, never fetched; nothing else may name a URL
    rest = re.sub(r'xmlns(:\w+)?="[^"]*"', "", text)
    rest = rest.replace('"http://www.w3.org/2000/svg"', "").replace("http-equiv", "")
    assert "http" not in rest
    assert "<link" not in rest and not re.search(r'\ssrc="(?!data:)', rest)


def test_loads_without_errors_or_requests(driver, page):
    driver.get(page.as_uri())
    logs = driver.get_log("browser")
    assert [e for e in logs if e["level"] == "SEVERE"] == []
    urls = []
    for entry in driver.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg.get("method") == "Network.requestWillBeSent":
            urls.append(msg["params"]["request"]["url"])
    assert urls and all(u == page.as_uri() or u.startswith("data:") for u in urls), urls


def test_stepping_follows_explain(driver, page, explained):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    driver.get(page.as_uri())
    body = driver.find_element(By.TAG_NAME, "body")
    steps = _steps(explained)
    assert driver.execute_script("return window.autotrace.steps") == len(steps) == 6
    grads = []
    for k, (p, s) in enumerate(steps):
        where = driver.find_element(By.ID, "where").text
        assert where == f"Pass {p['number']} of 3 · step {s['number']} of {len(p['steps'])}"
        current = driver.execute_script(
            "var g=document.querySelector('#graph g.node.current');return g&&g.querySelector('title').textContent")
        assert current == s["node"]
        panel = driver.find_element(By.ID, "step").text
        assert s["node_name"] in panel
        for e in s["edges"]:
            assert e["formula"] in panel                     # ∂loss/∂w = 1 · 2 = 2
        if s["kind"] == "accumulate":
            grads.append(driver.find_element(By.ID, "leaves").text)
        line = driver.execute_script("var l=document.querySelector('.ln.current');return l&&l.dataset.line")
        assert line == str(s["line"])
        if k < len(steps) - 1:
            body.send_keys(Keys.ARROW_RIGHT)
    assert grads == ["w.grad 2", "w.grad 4", "w.grad 6"]
    assert explained["final_grads"] == {"w": 6.0}
    body.send_keys(Keys.ARROW_RIGHT)                            # at the end: stays
    assert "Pass 3 of 3 · step 2 of 2" == driver.find_element(By.ID, "where").text
    body.send_keys(Keys.HOME)
    assert driver.find_element(By.ID, "leaves").text == "w.grad None"
    body.send_keys(Keys.PAGE_DOWN)
    assert driver.find_element(By.ID, "where").text.startswith("Pass 2 of 3 · step 1")


def test_edge_gradients_and_node_record_by_keyboard(driver, page):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    driver.get(page.as_uri())
    body = driver.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_RIGHT)                            # AccumulateGrad of pass 1
    labels = driver.execute_script("return [...document.querySelectorAll('#graph text.edgegrad')].map(t=>t.textContent)")
    assert labels == ["2"]                                      # the gradient PowBackward0 sent to w
    node = driver.execute_script(
        "return [...document.querySelectorAll('#graph g.node')].find(g=>g.querySelector('title').textContent==='n0')")
    node.send_keys(Keys.ENTER)
    record = driver.find_element(By.ID, "record").text
    assert "AccumulateGrad (n0)" in record and "float32" in record


def test_screenshot_of_a_step(driver, page, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    driver.get(page.as_uri())
    for _ in range(3):
        driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    shot = tmp_path / "step.png"
    assert driver.save_screenshot(str(shot))
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000


def test_script_text_cannot_break_out_of_the_page(tmp_path, driver):
    s = tmp_path / "evil.py"
    s.write_text('import torch\nx = torch.tensor(1.0, requires_grad=True)\n'
                 'print("</script><script>document.title=\'pwned\'</script>")\n'
                 '# </pre><img src=x onerror="document.title=\'pwned\'">\n(x * 2).backward()\n')
    out = tmp_path / "evil.html"
    assert run_cli("html", s, "-o", out).returncode == 0
    driver.get(out.as_uri())
    assert driver.title != "pwned"
    from selenium.webdriver.common.by import By
    assert "</script><script>" in driver.find_element(By.ID, "stdout").text


def test_cli_errors(tmp_path):
    proc = run_cli("html", ACC, "-o", tmp_path / "missing" / "page.html")
    assert proc.returncode == 2 and "does not exist" in proc.stderr
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n")
    proc = run_cli("html", bad, "-o", tmp_path / "p.html")
    assert proc.returncode == 1 and "bad.py:1:" in proc.stderr


def test_page_without_backward(tmp_path, driver):
    from selenium.webdriver.common.by import By

    s = tmp_path / "nob.py"
    s.write_text("import torch\nx = torch.tensor(2.0)\nprint(x)\n")
    out = tmp_path / "p.html"
    assert run_cli("html", s, "-o", out).returncode == 0
    driver.get(out.as_uri())
    assert driver.find_element(By.ID, "where").text == "The script runs no backward pass."
    assert driver.find_element(By.ID, "stdout").text == "tensor(2.)"


def test_explain_format_html_is_the_same_page(tmp_path):
    out = tmp_path / "p.html"
    assert run_cli("html", ACC, "-o", out).returncode == 0
    proc = run_cli("explain", ACC, "--format", "html")
    assert proc.returncode == 0
    assert proc.stdout == out.read_text(encoding="utf-8")


def test_folded_training_loop_steps_one_pass_and_shows_the_table(tmp_path, driver):
    from selenium.webdriver.common.by import By

    out = tmp_path / "adam.html"
    assert run_cli("html", SCENARIOS / "adam_mlp.py", "-o", out).returncode == 0
    ex = json.loads(run_cli("explain", SCENARIOS / "adam_mlp.py", "--json").stdout)
    (fold,) = ex["folds"]
    driver.get(out.as_uri())
    assert driver.execute_script("return window.autotrace.steps") == sum(len(p["steps"]) for p in ex["passes"])
    rows = driver.find_elements(By.CSS_SELECTOR, ".foldtable tbody tr")
    assert len(rows) == fold["last"] - fold["first"] + 1 == 50
    first = rows[0].find_elements(By.TAG_NAME, "td")
    assert first[0].text == "1" and first[1].text == f"{fold['rows'][0]['loss']:.6g}"
