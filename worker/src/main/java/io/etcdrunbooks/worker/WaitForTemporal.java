package io.etcdrunbooks.worker;

import io.grpc.StatusRuntimeException;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks the Temporal frontend until it answers (GetSystemInfo), waiting {@link #FIRST_WAIT} after
 * the first failure, twice as long after each next, at most {@link #LONGEST_WAIT}. A failure is
 * logged when it differs from the one before, naming the address; the answer after failures once.
 */
final class WaitForTemporal {

  static final Duration FIRST_WAIT = Duration.ofSeconds(1);
  static final Duration LONGEST_WAIT = Duration.ofSeconds(30);
  private static final Duration CALL_DEADLINE = Duration.ofSeconds(5);

  private static final Logger LOG = LoggerFactory.getLogger(WaitForTemporal.class);

  private final WorkflowServiceStubs stubs;
  private final String address;
  private String lastFailure;

  WaitForTemporal(WorkflowServiceStubs stubs, String address) {
    this.stubs = stubs;
    this.address = address;
  }

  /** One call: whether Temporal answers now. */
  boolean answers() {
    try {
      stubs
          .blockingStub()
          .withDeadlineAfter(CALL_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)
          .getSystemInfo(GetSystemInfoRequest.getDefaultInstance());
    } catch (StatusRuntimeException e) {
      if (Thread.currentThread().isInterrupted()) return false; // the worker closes
      String failure =
          e.getMessage() + (e.getCause() == null ? "" : " (" + e.getCause().getMessage() + ")");
      if (!failure.equals(lastFailure)) {
        LOG.warn(
            "Temporal at {} does not answer: {}. The worker keeps trying (at most every {} s) and"
                + " is not ready (/health) until it answers",
            address,
            failure,
            LONGEST_WAIT.toSeconds());
        lastFailure = failure;
      }
      return false;
    }
    if (lastFailure != null) LOG.info("Temporal at {} answers now", address);
    lastFailure = null;
    return true;
  }

  /** Asks until Temporal answers. */
  void await() throws InterruptedException {
    Duration wait = FIRST_WAIT;
    while (!answers()) {
      TimeUnit.MILLISECONDS.sleep(wait.toMillis());
      wait = wait.multipliedBy(2).compareTo(LONGEST_WAIT) > 0 ? LONGEST_WAIT : wait.multipliedBy(2);
    }
  }
}
