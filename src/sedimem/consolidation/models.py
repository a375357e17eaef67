"""What a consolidation run reports and logs."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["ConsolidationReport", "JobReport", "JobStatus"]

JobStatus = Literal["ok", "skipped", "failed"]


class JobReport(BaseModel):
    """One job's run: ``ok``, ``skipped`` (another worker holds its lease) or ``failed``.

    ``counts_in`` counts what the job read (episodes; with an LLM extractor also its
    ``llm_requests``, ``llm_retries``, ``llm_failures``, ``llm_prompt_tokens``,
    ``llm_completion_tokens``, ``llm_invalid_replies``), ``counts_out`` what it changed (or,
    in a dry run, what it would change). ``warnings`` says what went wrong without failing
    the job (an episode whose extraction failed: it is counted as ``extraction_failed``).
    """

    model_config = ConfigDict(extra="forbid")

    job: str = Field(description="The job's name.")
    tenant: str = Field(description="The tenant it ran for.")
    status: JobStatus = Field(description="`ok`, `skipped` (another worker held it) or `failed`.")
    dry_run: bool = Field(default=False, description="Whether it only reported (changed nothing).")
    started_at: float = Field(description="When it started (Unix seconds).")
    finished_at: float = Field(description="When it finished (Unix seconds).")
    counts_in: dict[str, int] = Field(
        default_factory=dict, description="What it read, by name (e.g. `episodes`)."
    )
    counts_out: dict[str, int] = Field(
        default_factory=dict, description="What it changed (or would change), by name."
    )
    error: str | None = Field(default=None, description="Why it failed.")
    warnings: list[str] = Field(
        default_factory=list,
        description="Problems that did not fail the job (at most 20; the counts are exact).",
    )
    run_id: str | None = Field(
        default=None, description="The id of the run's log record (unset in a dry run)."
    )

    @property
    def seconds(self) -> float:
        return self.finished_at - self.started_at


class ConsolidationReport(BaseModel):
    """The jobs of one ``Consolidator.run`` call, in the order they ran."""

    model_config = ConfigDict(extra="forbid")

    tenant: str = Field(description="The tenant consolidated.")
    dry_run: bool = Field(description="Whether it only reported (changed nothing).")
    jobs: list[JobReport] = Field(description="One report per job, in the order they ran.")

    def job(self, name: str) -> JobReport:
        for report in self.jobs:
            if report.job == name:
                return report
        raise KeyError(name)

    @property
    def ok(self) -> bool:
        return all(j.status != "failed" for j in self.jobs)
