"""An adapter for OpenAI-compatible chat-completions endpoints (vLLM, llama.cpp server, hosted APIs).

Standard-library HTTP only (`urllib`), so the ``reader`` extra adds no package. Nothing is called unless a
user builds a reader (``packbench reader --reader openai:MODEL --base-url URL``). Per call:

* **cache**: the answer is stored on disk under the SHA-256 of the request body (model, messages, sampling
  parameters); the same request is answered from the cache without a network call;
* **rate limit**: at most `requests_per_second` requests (a minimum interval between them);
* **retries**: HTTP 429 and 5xx, and connection errors, are retried up to `max_retries` times with
  exponential backoff (``backoff * 2**attempt`` seconds, or the server's ``Retry-After`` when it is larger);
* **cost**: the response's ``usage`` (prompt and completion tokens) is added up, and priced when prices
  per million tokens are given.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

from packbench.experiments.storage import write_atomic

from .base import ReaderError

__all__ = ["OpenAIChatReader", "PROMPT"]

PROMPT = ("Write a high-quality answer for the given question using only the provided search results. "
          "Answer with a short phrase, no explanation.")
_RETRY = {429, 500, 502, 503, 504}


class OpenAIChatReader:
    """A `Reader` backed by ``POST {base_url}/chat/completions``.

    Args:
        model: Model name sent to the endpoint.
        base_url: Endpoint root, e.g. ``http://127.0.0.1:8000/v1``.
        api_key: Bearer token; default the ``OPENAI_API_KEY`` environment variable (local servers need none).
        cache_dir: Directory of cached answers (None: no cache).
        max_retries: Retries after the first attempt.
        backoff: First retry delay in seconds.
        requests_per_second: Rate limit (None: unlimited).
        timeout: Seconds per request.
        max_tokens: Completion length cap.
        price_prompt: Price per million prompt tokens (for `usage["cost"]`).
        price_completion: Price per million completion tokens.
        sleep: Called to wait (tests pass a recorder).

    Raises:
        ValueError: Empty model or base URL, or a negative setting (names it).
    """

    def __init__(self, model: str, base_url: str, *, api_key: str | None = None, cache_dir: Path | str | None = None,
                 max_retries: int = 4, backoff: float = 0.5, requests_per_second: float | None = None,
                 timeout: float = 60.0, max_tokens: int = 32, price_prompt: float = 0.0,
                 price_completion: float = 0.0, sleep: Callable[[float], None] = time.sleep) -> None:
        if not model or not isinstance(model, str):
            raise ValueError(f"reader: model must be a non-empty string, got {model!r}")
        if not base_url or not str(base_url).startswith(("http://", "https://")):
            raise ValueError(f"reader: base_url must start with http:// or https://, got {base_url!r}")
        for name, value in (("max_retries", max_retries), ("backoff", backoff), ("timeout", timeout),
                            ("max_tokens", max_tokens), ("price_prompt", price_prompt),
                            ("price_completion", price_completion)):
            if value < 0:
                raise ValueError(f"reader: {name} must be >= 0, got {value!r}")
        if requests_per_second is not None and requests_per_second <= 0:
            raise ValueError(f"reader: requests_per_second must be > 0, got {requests_per_second!r}")
        self.model, self.url = model, str(base_url).rstrip("/") + "/chat/completions"
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self.cache_dir = None if cache_dir is None else Path(cache_dir)
        self.max_retries, self.backoff, self.timeout = int(max_retries), float(backoff), float(timeout)
        self.interval = 0.0 if requests_per_second is None else 1.0 / requests_per_second
        self.max_tokens, self.prices = int(max_tokens), (float(price_prompt), float(price_completion))
        self.sleep = sleep
        self._last = None
        self.usage = {"requests": 0, "retries": 0, "cache_hits": 0, "prompt_tokens": 0, "completion_tokens": 0,
                      "cost": 0.0}

    def _body(self, context: str, question: str) -> bytes:
        messages = [{"role": "system", "content": PROMPT},
                    {"role": "user", "content": f"{context}\n\nQuestion: {question}\nAnswer:"}]
        return json.dumps({"model": self.model, "messages": messages, "temperature": 0,
                           "max_tokens": self.max_tokens}, sort_keys=True).encode()

    def _post(self, body: bytes) -> dict:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        last = "no attempt"
        for attempt in range(self.max_retries + 1):
            if self.interval and self._last is not None:
                wait = self.interval - (time.monotonic() - self._last)
                if wait > 0:
                    self.sleep(wait)
            self._last = time.monotonic()
            self.usage["requests"] += 1
            delay = self.backoff * 2 ** attempt
            try:
                req = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
                with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                    return json.loads(resp.read().decode())
            except urllib.error.HTTPError as exc:
                last = f"HTTP {exc.code}"
                if exc.code not in _RETRY:
                    raise ReaderError(f"reader {self.url}: {last}: {exc.read()[:200]!r}") from None
                after = exc.headers.get("Retry-After") if exc.headers else None
                if after and after.replace(".", "", 1).isdigit():
                    delay = max(delay, float(after))
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                last = f"{type(exc).__name__}: {exc}"
            if attempt < self.max_retries:
                self.usage["retries"] += 1
                self.sleep(delay)
        raise ReaderError(f"reader {self.url}: gave up after {self.max_retries + 1} attempts (last: {last})")

    def __call__(self, context: str, question: str) -> str:
        body = self._body(context, question)
        path = None
        if self.cache_dir is not None:
            path = self.cache_dir / f"{hashlib.sha256(body).hexdigest()}.json"
            if path.is_file():
                self.usage["cache_hits"] += 1
                return json.loads(path.read_text(encoding="utf-8"))["answer"]
        reply = self._post(body)
        try:
            answer = reply["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise ReaderError(f"reader {self.url}: response has no choices[0].message.content") from None
        if not isinstance(answer, str):
            raise ReaderError(f"reader {self.url}: choices[0].message.content is {type(answer).__name__}")
        answer = answer.strip()
        used = reply.get("usage") or {}
        prompt, completion = int(used.get("prompt_tokens", 0)), int(used.get("completion_tokens", 0))
        self.usage["prompt_tokens"] += prompt
        self.usage["completion_tokens"] += completion
        self.usage["cost"] += (prompt * self.prices[0] + completion * self.prices[1]) / 1e6
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, json.dumps({"answer": answer, "usage": used}) + "\n")
        return answer
