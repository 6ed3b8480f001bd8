package io.etcdrunbooks.workflows.inventory;

import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;

/** {@link InventoryRecordWorkflow}: the record, its version, and a bound on its history. */
public final class InventoryRecordKeeper implements InventoryRecordWorkflow {

  /** Changes per run; a membership change is a handful, so a run lasts a long time. */
  static final int CHANGES_PER_RUN = 500;

  /** The failure type of a change made on a version that is no longer current. */
  public static final String STALE = "InventoryRecordStale";

  private final int changesPerRun;
  private InventoryRecord record = InventoryRecord.none();
  private int changes;

  /**
   * An update that comes with the run's first task is handled before {@link #keep} starts: its
   * handler waits for the record the run starts with, or it would be overwritten.
   */
  private boolean started;

  public InventoryRecordKeeper() {
    this(CHANGES_PER_RUN);
  }

  /** With another bound, for tests of the continue-as-new. */
  InventoryRecordKeeper(int changesPerRun) {
    this.changesPerRun = changesPerRun;
  }

  @Override
  public void keep(InventoryRecord start) {
    record = start == null ? InventoryRecord.none() : start;
    started = true;
    Workflow.await(() -> changes >= changesPerRun || Workflow.getInfo().isContinueAsNewSuggested());
    // an update accepted in this task finishes before the record moves to the next run
    Workflow.await(Workflow::isEveryHandlerFinished);
    Workflow.continueAsNew(record);
  }

  @Override
  public InventoryRecord record() {
    return record;
  }

  @Override
  public void validateChange(RecordChange change) {
    if (started && change.onVersion() != record.version()) throw stale(change);
  }

  @Override
  public InventoryRecord change(RecordChange change) {
    Workflow.await(() -> started);
    // validators and handlers of one task may interleave; the version is checked again here
    if (change.onVersion() != record.version()) throw stale(change);
    record = new InventoryRecord(change.content(), record.version() + 1);
    changes++;
    return record;
  }

  @Override
  public InventoryRecord forget() {
    Workflow.await(() -> started);
    record = new InventoryRecord("", record.version() + 1);
    changes++;
    return record;
  }

  private ApplicationFailure stale(RecordChange change) {
    return ApplicationFailure.newNonRetryableFailure(
        "the record changed since version "
            + change.onVersion()
            + " (now "
            + record.version()
            + "); read it again and apply the change to it",
        STALE);
  }
}
