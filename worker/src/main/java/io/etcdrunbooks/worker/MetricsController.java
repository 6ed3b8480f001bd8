package io.etcdrunbooks.worker;

import io.etcdrunbooks.runtime.http.OwnAuthentication;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Produces;
import java.util.Optional;

/**
 * The Prometheus scrape endpoint: runbooks started and finished (by runbook type, cluster and
 * outcome), phase, member step and member restart durations (histograms), the phase each runbook is
 * in since when (read from Temporal), schedules' next rounds and our Temporal Schedules' state
 * ({@link ScheduleMetrics}), each member's health, Temporal's worker and client metrics ({@code
 * temporal_*}), the clusters the inventory refuses, the age of each cluster's newest verified
 * backup per target and its last restore drill ({@link BackupMetrics}, in a process with the worker
 * role), and the JVM's. No token: scrapers rarely carry one, and the API listens on 127.0.0.1
 * unless configured otherwise.
 */
@Controller
public final class MetricsController {

  private final PrometheusMeterRegistry registry;
  private final CertificateExpiryMetrics certificates;
  private final InventoryMetrics inventory;
  private final Optional<BackupMetrics> backups;
  private final MemberHealthMetrics members;
  private final RunbookPhaseMetrics phases;
  private final ScheduleMetrics schedules;

  public MetricsController(
      PrometheusMeterRegistry registry,
      CertificateExpiryMetrics certificates,
      InventoryMetrics inventory,
      Optional<BackupMetrics> backups,
      MemberHealthMetrics members,
      RunbookPhaseMetrics phases,
      ScheduleMetrics schedules) {
    this.registry = registry;
    this.certificates = certificates;
    this.inventory = inventory;
    this.backups = backups;
    this.members = members;
    this.phases = phases;
    this.schedules = schedules;
  }

  @OwnAuthentication(
      "public to the scraper, as Prometheus endpoints are; keep the port off the internet")
  @Get("/metrics")
  @Produces("text/plain; version=0.0.4; charset=utf-8")
  public String scrape() {
    certificates.refreshIfStale();
    members.refreshIfStale();
    inventory.refresh();
    backups.ifPresent(BackupMetrics::refreshIfStale);
    phases.refreshIfStale();
    schedules.refreshIfStale();
    return registry.scrape();
  }
}
