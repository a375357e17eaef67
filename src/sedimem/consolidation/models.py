"""What a consolidation run reports and logs."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["ConsolidationReport", "JobReport", "JobStatus"]

JobStatus = Literal["ok", "skipped", "failed"]


class JobReport(BaseModel):
    """One job's run: ``ok``, ``skipped`` (another worker holds its lease) or ``failed``.

    ``counts_in`` counts what the job read (episodes), ``counts_out`` what it changed (or,
    in a dry run, what it would change).
    """

    model_config = ConfigDict(extra="forbid")

    job: str
    tenant: str
    status: JobStatus
    dry_run: bool = False
    started_at: float
    finished_at: float
    counts_in: dict[str, int] = Field(default_factory=dict)
    counts_out: dict[str, int] = Field(default_factory=dict)
    error: str | None = None
    run_id: str | None = None  # the id of the run's log record (None in a dry run)

    @property
    def seconds(self) -> float:
        return self.finished_at - self.started_at


class ConsolidationReport(BaseModel):
    """The jobs of one ``Consolidator.run`` call, in the order they ran."""

    model_config = ConfigDict(extra="forbid")

    tenant: str
    dry_run: bool
    jobs: list[JobReport]

    def job(self, name: str) -> JobReport:
        for report in self.jobs:
            if report.job == name:
                return report
        raise KeyError(name)

    @property
    def ok(self) -> bool:
        return all(j.status != "failed" for j in self.jobs)
