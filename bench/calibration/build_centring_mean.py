"""Build the fixed centring mean shipped with the package (the reference statistic of the anisotropy correction).

    python -m bench.calibration.build_centring_mean --corpus ../shared/data/wikipedia/*.txt \
        --out ragtest_core/params/centring_mean_wiki7 --label "7 shared Wikipedia articles"

Reads the corpus files, splits them into sentences (the judge's splitter), keeps sentences with at least
`MIN_CONTENT_WORDS` content words and at most `MAX_CHARS` characters (drops headings and reference-list debris),
de-duplicates, embeds each once, and writes `<out>.npy` (float32 vector) and `<out>.json` (provenance: files with
sha256, sentence count, model, precision, this script, the norm and sha256 of the mean). The shipped mean is the
seven articles of ../shared/data/wikipedia: public, encyclopaedic (the typical RAG corpus), label-free, and no
evaluation set's contexts. The answer-relevancy calibration was fitted for this mean: a mean built from another
corpus needs a refit (`bench.calibration.fit_answer_relevancy --mean`) before its scores read as calibrated.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ragtest_core.embeddings import get_embedder
from ragtest_core.textunits import sentences, unit

MIN_CONTENT_WORDS = 4
MAX_CHARS = 600


def corpus_sentences(texts: Sequence[str]) -> list[str]:
    """The distinct sentences of the texts that carry content (see the module docstring)."""
    kept = [
        s for text in texts for s in sentences(text) if len(s) <= MAX_CHARS and len(unit(s).keys) >= MIN_CONTENT_WORDS
    ]
    return list(dict.fromkeys(kept))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.calibration.build_centring_mean")
    parser.add_argument("--corpus", nargs="+", type=Path, required=True, help="plain-text files")
    parser.add_argument("--out", type=Path, required=True, help="output path without suffix")
    parser.add_argument("--label", default="", help="a name for the corpus, kept in the provenance")
    args = parser.parse_args(argv)
    embedder = get_embedder()
    files = sorted(args.corpus)
    found = corpus_sentences([f.read_text(encoding="utf-8") for f in files])
    mean = np.asarray(embedder.embed(found).mean(axis=0), dtype=np.float32)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.save(args.out.with_suffix(".npy"), mean)
    provenance = {
        "label": args.label,
        "model": embedder.model_name,
        "precision": embedder.precision,
        "script": "bench/calibration/build_centring_mean.py",
        "files": [{"name": f.name, "sha256": hashlib.sha256(f.read_bytes()).hexdigest()} for f in files],
        "sentences": len(found),
        "min_content_words": MIN_CONTENT_WORDS,
        "max_chars": MAX_CHARS,
        "mean_norm": float(np.linalg.norm(mean)),
        "mean_sha256": hashlib.sha256(mean.tobytes()).hexdigest(),
    }
    args.out.with_suffix(".json").write_text(json.dumps(provenance, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in provenance.items() if k != "files"}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
