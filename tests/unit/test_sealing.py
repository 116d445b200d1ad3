"""Sealed blobs (issue 15 item 7): one key per table derived with HKDF-SHA256, the key version
in a 4-byte header, legacy (version 0) blobs still opening, unknown versions refused with a
clear error, the keyring re-read by each container, and the keyring secret's format."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import zlib
from typing import Any

import pytest
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from hypothesis import given, settings
from hypothesis import strategies as st
from naiko_service import bootstrap, sealing
from naiko_service.ports import UnreadableTable
from naiko_service.records import FALLBACK_AAD_SUFFIX, Sealer, open_record
from naiko_service.seal_dictionary import SEAL_DICTIONARY, SEAL_DICTIONARY_ID
from naiko_service.sealing import Keyring, UnknownKeyVersion, key_version

K1, K2, LEGACY = bytes(range(32)), bytes(range(1, 33)), bytes(range(2, 34))
DOC: dict[str, Any] = {"format": 1, "deck": ["As", "Kd"], "seats": [None, {"p": "alice"}]}


def hkdf_sha256(ikm: bytes, info: bytes, length: int = 32) -> bytes:
    """RFC 5869 with the standard library (no salt: HashLen zero bytes)."""
    prk = hmac.new(bytes(32), ikm, hashlib.sha256).digest()
    okm, block = b"", b""
    for counter in range(1, -(-length // 32) + 1):
        block = hmac.new(prk, block + info + bytes([counter]), hashlib.sha256).digest()
        okm += block
    return okm[:length]


def legacy_blob(key: bytes, document: dict[str, Any], aad: str,
                nonce: bytes | None = None) -> bytes:
    """A blob as the service sealed it before key versions: nonce || AES-GCM(key)."""
    nonce = os.urandom(12) if nonce is None else nonce
    plain = zlib.compress(json.dumps(document, separators=(",", ":")).encode(), 6)
    return nonce + AESGCM(key).encrypt(nonce, plain, aad.encode())


def test_the_blob_format_is_the_documented_one() -> None:
    sealer = Sealer(Keyring(2, {1: K1, 2: K2}))
    blob = sealer.seal(DOC, "t1")
    header, nonce, body = blob[:4], blob[4:16], blob[16:]
    assert header == b"NK\x00\x02" and key_version(blob) == 2
    table_key = hkdf_sha256(K2, b"naiko/state-seal/v1/aes-256-gcm/table:t1")
    assert sealing.derive_table_key(K2, "t1") == table_key
    plain = AESGCM(table_key).decrypt(nonce, body, header + b"t1")  # aad = header || table id
    # zlib level 6 against the preset dictionary its header names (FDICT, Adler-32)
    assert plain[1] & 0x20 and int.from_bytes(plain[2:6], "big") == SEAL_DICTIONARY_ID
    inflater = zlib.decompressobj(zdict=SEAL_DICTIONARY)
    assert json.loads(inflater.decompress(plain) + inflater.flush()) == DOC
    deflater = zlib.compressobj(6, zdict=SEAL_DICTIONARY)
    assert len(body) == len(deflater.compress(json.dumps(DOC, separators=(",", ":")).encode())
                            + deflater.flush()) + 16


def test_the_preset_dictionary_is_frozen() -> None:
    """Blobs sealed with it open only with exactly these bytes: a new dictionary is added to
    ``DICTIONARIES``, never edited in place."""
    assert zlib.adler32(SEAL_DICTIONARY) == SEAL_DICTIONARY_ID == 0xD360C392
    assert len(SEAL_DICTIONARY) == 12_667
    assert sealing.DICTIONARIES[SEAL_DICTIONARY_ID] is SEAL_DICTIONARY


def test_issue_23_a_state_seals_smaller_with_the_dictionary() -> None:
    """A table's state in the middle of a hand (another table than the dictionary's) seals in
    well under half the bytes of the stream without a preset dictionary (DynamoDB bills the
    item by the KB): and blobs sealed before (no dictionary) still open."""
    from service_testing import harness
    from test_service import actor, seated

    h = harness(11)
    table_id, players = seated(h, 6)
    actor(players).send(action="act", table_id=table_id, move="call")
    document = h.store.load(table_id).to_document()
    sealer = Sealer(K1)
    blob = sealer.seal(document, table_id)
    plain = zlib.compress(json.dumps(document, separators=(",", ":")).encode(), 6)
    assert len(blob) - 32 < len(plain) / 2
    assert sealer.open(blob, table_id) == document
    old = legacy_blob(K1, document, table_id)  # unversioned, no dictionary
    assert sealer.open(old, table_id) == document
    header, nonce = b"NK\x00\x01", os.urandom(12)  # versioned, before the dictionary
    old = header + nonce + AESGCM(sealing.derive_table_key(K1, table_id)).encrypt(
        nonce, plain, header + table_id.encode())
    assert sealer.open(old, table_id) == document


def test_a_stream_naming_an_unknown_dictionary_does_not_open() -> None:
    deflater = zlib.compressobj(6, zdict=b"another dictionary")
    stream = deflater.compress(b"{}") + deflater.flush()
    with pytest.raises(zlib.error):
        sealing.decompress(stream)


def test_each_table_has_its_own_key() -> None:
    sealer = Sealer(K1)
    assert sealing.derive_table_key(K1, "t1") != sealing.derive_table_key(K1, "t2")
    assert sealing.derive_table_key(K1, "t1") != sealing.derive_table_key(K2, "t1")
    blob = sealer.seal(DOC, "t1")
    with pytest.raises(InvalidTag):
        sealer.open(blob, "t2")
    # Same table, another purpose: a fallback or a hand record never opens as the state.
    fallback = sealer.seal(DOC, "t1", FALLBACK_AAD_SUFFIX)
    with pytest.raises(InvalidTag):
        sealer.open(fallback, "t1")
    assert sealer.open(fallback, "t1", FALLBACK_AAD_SUFFIX) == DOC


def test_the_header_is_authenticated() -> None:
    """Changing the version in the header (to another version the keyring holds) fails."""
    sealer = Sealer(Keyring(2, {1: K1, 2: K1}))  # even with the same master for both
    blob = sealer.seal(DOC, "t1")
    forged = b"NK\x00\x01" + blob[4:]
    with pytest.raises(InvalidTag):
        sealer.open(forged, "t1")


def test_a_blob_sealed_with_version_1_opens_after_rotating_to_version_2() -> None:
    v1 = Sealer(Keyring(1, {1: K1}))
    old = v1.seal(DOC, "t1")
    v2 = Sealer(Keyring(2, {1: K1, 2: K2}))
    assert v2.open(old, "t1") == DOC and key_version(old) == 1
    new = v2.seal(DOC, "t1")
    assert key_version(new) == 2 and v2.open_versioned(new, "t1") == (DOC, 2)
    with pytest.raises(UnknownKeyVersion):
        v1.open(new, "t1")  # an old container without a refresh cannot: see below


def test_legacy_blobs_still_open_as_version_0() -> None:
    sealer = Sealer(Keyring.single(LEGACY))  # a secret unchanged since before versions
    for aad, purpose in (("t1", ""), ("t1#fallback", FALLBACK_AAD_SUFFIX),
                         ("t1#hand#7", "#hand#7")):
        blob = legacy_blob(LEGACY, DOC, aad)
        assert sealer.open_versioned(blob, "t1", purpose) == (DOC, 0)
    assert key_version(sealer.seal(DOC, "t1")) == 1  # and new writes are versioned


@pytest.mark.parametrize("header", [b"NK\x00\x01", b"NK\x00\x02", b"NK\x00\x09", b"NK\x00\x00"])
def test_a_legacy_blob_whose_nonce_looks_like_a_header_opens(header: bytes) -> None:
    """1 in 65,536 legacy nonces start with "NK": known or unknown version, GCM tells."""
    sealer = Sealer(Keyring(2, {0: LEGACY, 1: K1, 2: K2}))
    blob = legacy_blob(LEGACY, DOC, "t1", nonce=header + os.urandom(8))
    assert sealer.open_versioned(blob, "t1") == (DOC, 0)
    # Still authenticated: as another table's it fails (as an unknown version when its
    # "header" names one, the likelier reading of such a blob).
    with pytest.raises((InvalidTag, UnknownKeyVersion)):
        sealer.open(blob, "t2")


def test_an_unknown_version_is_refused_with_a_clear_error() -> None:
    blob = Sealer(Keyring(3, {3: K2})).seal(DOC, "t1")
    sealer = Sealer(Keyring(2, {0: LEGACY, 1: K1, 2: K1}))
    with pytest.raises(UnknownKeyVersion) as refused:
        sealer.open(blob, "t1")
    assert (refused.value.version, refused.value.known) == (3, (0, 1, 2))
    assert "version 3" in str(refused.value) and "docs/secrets.md" in str(refused.value)
    # A keyring whose legacy key was retired refuses legacy blobs the same way.
    retired = Sealer(Keyring(2, {2: K2}))
    with pytest.raises(UnknownKeyVersion) as legacy:
        retired.open(legacy_blob(LEGACY, DOC, "t1"), "t1")
    assert legacy.value.version == 0


def test_an_unknown_version_is_not_a_damaged_table() -> None:
    """R8.6 cancels the hand of a table that cannot be read; a missing key is configuration,
    so open_record lets UnknownKeyVersion through instead of UnreadableTable."""
    newer = Sealer(Keyring(2, {2: K2}))
    older = Sealer(Keyring(1, {1: K1}))
    with pytest.raises(UnknownKeyVersion):
        open_record(older, "t1", 3, newer.seal(DOC, "t1"), None)
    with pytest.raises(UnreadableTable):
        open_record(older, "t1", 3, older.seal(DOC, "t2"), None)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_container_re_reads_its_keyring() -> None:
    """After a rotation another container may seal with version 2 first: the old one re-reads
    the keyring when it meets it (at most every 5 s), and every REFRESH_SECONDS anyway."""
    clock, secret = Clock(), [Keyring(1, {1: K1})]
    reads: list[float] = []

    def refresh() -> Keyring:
        reads.append(clock.now)
        return secret[0]

    old = Sealer(secret[0], refresh=refresh, monotonic=clock)
    assert key_version(old.seal(DOC, "t1")) == 1 and reads == []
    secret[0] = Keyring(2, {1: K1, 2: K2})                     # the rotation
    fresh = Sealer(secret[0])
    assert old.open(fresh.seal(DOC, "t1"), "t1") == DOC        # met version 2: re-read
    assert reads == [1000.0] and key_version(old.seal(DOC, "t1")) == 2

    clock.now += sealing.UNKNOWN_VERSION_REFRESH_GAP
    unknown = Sealer(Keyring(3, {3: K2})).seal(DOC, "t1")
    with pytest.raises(UnknownKeyVersion):
        old.open(unknown, "t1")
    with pytest.raises(UnknownKeyVersion):
        old.open(unknown, "t1")                                # no second read within 5 s
    assert len(reads) == 2
    clock.now += sealing.UNKNOWN_VERSION_REFRESH_GAP
    with pytest.raises(UnknownKeyVersion):
        old.open(unknown, "t1")
    assert len(reads) == 3

    secret[0] = Keyring(3, {1: K1, 2: K2, 3: K1})
    clock.now += sealing.REFRESH_SECONDS - 1
    assert key_version(old.seal(DOC, "t1")) == 2 and len(reads) == 3
    clock.now += 1                                             # the keyring is 5 minutes old
    assert key_version(old.seal(DOC, "t1")) == 3 and len(reads) == 4


def test_a_failed_refresh_keeps_the_keyring() -> None:
    clock = Clock()
    calls: list[float] = []

    def broken() -> Keyring:
        calls.append(clock.now)
        raise ConnectionError("secrets manager unreachable")

    sealer = Sealer(Keyring(1, {1: K1}), refresh=broken, monotonic=clock)
    clock.now += sealing.REFRESH_SECONDS
    assert sealer.open(sealer.seal(DOC, "t1"), "t1") == DOC and len(calls) == 1
    assert key_version(sealer.seal(DOC, "t1")) == 1 and len(calls) == 1  # not every call
    clock.now += 60
    sealer.seal(DOC, "t1")
    assert len(calls) == 2                                     # retried a minute later


def test_table_keys_are_derived_once_per_container() -> None:
    sealer = Sealer(Keyring(2, {0: LEGACY, 1: K1, 2: K2}))
    for _ in range(3):
        for table in ("t1", "t2"):
            sealer.open(sealer.seal(DOC, table), table)
            sealer.open(sealer.seal(DOC, table, "#hand#1"), table, "#hand#1")  # same key
    assert sealer.derivations == 2
    sealer.open(legacy_blob(LEGACY, DOC, "t1"), "t1")
    sealer.open(legacy_blob(LEGACY, DOC, "t9"), "t9")
    assert sealer.derivations == 3                             # one legacy key for all


def test_the_key_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sealing, "KEY_CACHE_SIZE", 2)
    sealer = Sealer(K1)
    for table in ("a", "b", "c", "a"):
        sealer.seal(DOC, table)
    assert sealer.derivations == 4 and len(sealer._keys) == 2


@settings(max_examples=60, deadline=None)
@given(document=st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=8),
                                max_size=4),
       table_id=st.text(min_size=1, max_size=40), purpose=st.sampled_from(
           ["", FALLBACK_AAD_SUFFIX, "#hand#1", "#hand#12"]),
       current=st.integers(1, sealing.MAX_VERSION))
def test_seal_then_open_is_the_identity(document: dict[str, Any], table_id: str, purpose: str,
                                        current: int) -> None:
    sealer = Sealer(Keyring(current, {current: K2, 0: LEGACY}))
    blob = sealer.seal(document, table_id, purpose)
    assert key_version(blob) == current
    assert sealer.open_versioned(blob, table_id, purpose) == (document, current)


# -- the keyring secret ------------------------------------------------------------------------

def keyring_json(current: int, keys: dict[str, str], **extra: Any) -> str:
    return json.dumps({"format": bootstrap.KEYRING_FORMAT, "current": current, "keys": keys,
                       **extra})


def test_the_keyring_secret() -> None:
    generated = "Q7d" * 21 + "x"  # what CloudFormation generates
    plain = bootstrap.keyring_from_secret(generated)
    legacy_key = bootstrap.state_key_from_secret(generated)
    assert plain == Keyring(1, {0: legacy_key, 1: legacy_key})
    b64 = base64.b64encode(K2).decode()
    ring = bootstrap.keyring_from_secret(keyring_json(2, {"0": generated, "1": generated,
                                                          "2": b64}, current_since=5))
    assert ring.current == 2 and ring.masters == {0: legacy_key, 1: legacy_key, 2: K2}
    # The same generated secret before and after it became a keyring opens the same blobs.
    blob = Sealer(plain).seal(DOC, "t1")
    assert Sealer(ring).open(blob, "t1") == DOC
    assert bootstrap.keyring_from_secret(b64, plain="base64") == Keyring.single(K2)


@pytest.mark.parametrize("secret", [
    "{not json",
    json.dumps({"current": 1, "keys": {"1": "a" * 64}}),                 # no format
    keyring_json(2, {"1": "a" * 64}),                                    # current missing
    keyring_json(0, {"0": "a" * 64}),                                    # 0 never seals
    keyring_json(1, {"one": "a" * 64, "1": "a" * 64}),                   # a bad version
    keyring_json(1, {"1": "short"}),                                     # too short
    keyring_json(1, ["a" * 64]),  # type: ignore[arg-type]
    keyring_json(70000, {"70000": "a" * 64}),
])
def test_a_malformed_keyring_is_a_configuration_error(secret: str) -> None:
    with pytest.raises(bootstrap.ConfigurationError):
        bootstrap.keyring_from_secret(secret)


def test_with_the_dictionary_off_a_release_before_it_opens_the_blobs() -> None:
    """``SealDictionary=off`` (a stage upgrading from a release before the dictionary, whose
    canary's old version still reads): the stream is plain zlib, as that release inflates it;
    every sealer opens both."""
    env = {"TABLES_TABLE": "t", "ACCOUNTS_TABLE": "a", "LEDGER_TABLE": "l",
           "CONNECTIONS_TABLE": "c", "STATE_KEY": base64.b64encode(K1).decode()}
    assert bootstrap.state_sealer(bootstrap.Config.from_env(env), lambda: None).dictionary
    config = bootstrap.Config.from_env({**env, "SEAL_DICTIONARY": "off"})
    off = bootstrap.state_sealer(config, lambda: None)
    blob = off.seal(DOC, "t1")
    table_key = sealing.derive_table_key(K1, "t1")
    plain = AESGCM(table_key).decrypt(blob[4:16], blob[16:], blob[:4] + b"t1")
    assert json.loads(zlib.decompress(plain)) == DOC  # what the release before does
    assert Sealer(K1).open(blob, "t1") == DOC
    assert off.open(Sealer(K1).seal(DOC, "t1"), "t1") == DOC
    with pytest.raises(bootstrap.ConfigurationError):
        bootstrap.Config.from_env({**env, "SEAL_DICTIONARY": "yes"})


def test_state_key_must_be_base64_or_a_keyring() -> None:
    with pytest.raises(bootstrap.ConfigurationError):
        bootstrap.keyring_from_secret("a" * 64, plain="base64")
    config = bootstrap.Config.from_env({
        "TABLES_TABLE": "t", "ACCOUNTS_TABLE": "a", "LEDGER_TABLE": "l",
        "CONNECTIONS_TABLE": "c", "STATE_KEY": keyring_json(2, {"2": "b" * 64})})
    assert bootstrap.state_sealer(config, lambda: None).keyring.versions == (2,)
