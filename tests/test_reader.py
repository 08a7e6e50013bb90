"""The reader step: scoring, the OpenAI-compatible adapter against a local server, the step end to end."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from packbench.experiments.commands.reader import make_reader
from packbench.experiments.corpora.nq_open import NQOpen, normalize_answer
from packbench.experiments.reader import exact_match, run_reader, token_f1
from packbench.experiments.reader.base import ReaderError
from packbench.experiments.reader.openai_chat import OpenAIChatReader
from packbench.experiments.reader.step import summarise


@pytest.mark.parametrize("pred, golds, em", [
    ("The Beatles", ["Beatles"], 1.0),          # article dropped
    ("  Paris. ", ["paris"], 1.0),              # punctuation and whitespace
    ("an apple", ["Apple"], 1.0),
    ("Barack   Obama!", ["barack obama"], 1.0),
    ("Obama", ["Barack Obama"], 0.0),            # EM is exact after normalisation
    ("1492", ["in 1492", "1492"], 1.0),          # max over gold answers
])
def test_exact_match_uses_squad_normalisation(pred, golds, em):
    assert exact_match(pred, golds) == em


def test_token_f1_matches_hand_computed_values():
    assert token_f1("the cat sat", ["a cat sat down"]) == pytest.approx(0.8)  # P = 2/2, R = 2/3
    assert token_f1("Obama", ["Barack Obama"]) == pytest.approx(2 / 3)
    assert token_f1("dog", ["cat"]) == 0.0
    assert token_f1("x", ["cat", "x y"]) == pytest.approx(2 / 3)
    assert normalize_answer("The  Quick, brown FOX.") == "quick brown fox"


@pytest.mark.parametrize("golds", [[], "Paris"])
def test_scoring_rejects_bad_gold_answers(golds):
    with pytest.raises(ValueError, match="gold answers"):
        exact_match("Paris", golds)


class _Chat(BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.bodies.append(body)
        if self.server.fail_first and len(self.server.bodies) == 1:
            self.send_response(429)
            self.send_header("Retry-After", "0")
            self.end_headers()
            return
        if body["model"] == "bad":
            self.send_response(400)
            self.end_headers()
            self.wfile.write(b'{"error": "unknown model"}')
            return
        question = body["messages"][-1]["content"].rsplit("Question: ", 1)[1].split("\n")[0]
        reply = {"choices": [{"message": {"role": "assistant", "content": f" answer to {question} "}}],
                 "usage": {"prompt_tokens": 100, "completion_tokens": 5}}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Chat)
    srv.bodies, srv.fail_first = [], True
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def test_adapter_retries_a_429_then_answers_from_its_cache(server, tmp_path):
    waits = []
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    reader = OpenAIChatReader("m", url, api_key="", cache_dir=tmp_path, backoff=0.01, sleep=waits.append,
                              price_prompt=2.0, price_completion=10.0)
    assert reader("ctx", "who?") == "answer to who?"
    assert reader.usage["retries"] == 1 and reader.usage["requests"] == 2 and waits == [0.01]
    assert server.bodies[-1]["model"] == "m" and server.bodies[-1]["temperature"] == 0
    assert reader.usage["prompt_tokens"] == 100 and reader.usage["completion_tokens"] == 5
    assert reader.usage["cost"] == pytest.approx((100 * 2.0 + 5 * 10.0) / 1e6)
    sent = len(server.bodies)
    again = OpenAIChatReader("m", url, api_key="", cache_dir=tmp_path)  # a new process: the disk cache answers
    assert again("ctx", "who?") == "answer to who?"
    assert again.usage["cache_hits"] == 1 and len(server.bodies) == sent
    assert reader("ctx", "other?") == "answer to other?" and len(server.bodies) == sent + 1


def test_adapter_does_not_retry_a_client_error(server):
    server.fail_first = False
    reader = OpenAIChatReader("bad", f"http://127.0.0.1:{server.server_address[1]}/v1", api_key="",
                              sleep=lambda s: None)
    with pytest.raises(ReaderError, match="HTTP 400"):
        reader("ctx", "q")
    assert reader.usage["requests"] == 1


def test_adapter_gives_up_after_its_retries():
    reader = OpenAIChatReader("m", "http://127.0.0.1:9/v1", api_key="", max_retries=2, backoff=0.0,
                              sleep=lambda s: None, timeout=2)
    with pytest.raises(ReaderError, match="gave up after 3 attempts"):
        reader("ctx", "q")


@pytest.mark.parametrize("kwargs, field", [({"model": ""}, "model"), ({"base_url": "ftp://x"}, "base_url"),
                                           ({"max_retries": -1}, "max_retries"),
                                           ({"requests_per_second": 0}, "requests_per_second")])
def test_adapter_validates_its_settings(kwargs, field):
    args = {"model": "m", "base_url": "http://127.0.0.1:1/v1", **kwargs}
    with pytest.raises(ValueError, match=field):
        OpenAIChatReader(args.pop("model"), args.pop("base_url"), **args)


def test_openai_spec_needs_a_base_url():
    with pytest.raises(ValueError, match="--base-url"):
        make_reader("openai:gpt-x", None)


def test_reader_step_end_to_end_on_the_embedded_sample(monkeypatch):
    monkeypatch.delenv("PACKBENCH_DATA_DIR", raising=False)
    instances = list(NQOpen(n_questions=12, data="sample").instances(0))
    golds = {inst.meta["question"]: inst.meta["answers"] for inst in instances}

    def oracle(context: str, question: str) -> str:
        # Answers with a gold answer when the packed context holds one, as a perfect extractive reader would.
        norm = normalize_answer(context)
        return next((g for g in golds[question] if normalize_answer(g) and normalize_answer(g) in norm), "unknown")

    rows = run_reader(instances, oracle, 1000)
    assert len(rows) == 12
    for row in rows:
        assert row.exact_match == float(row.answer_in_context)
        assert row.context_tokens <= 1000
    s = summarise(rows)
    assert 0 < s["exact_match"] == s["answer_in_context"] <= 1
    assert s["f1"] >= s["exact_match"]
