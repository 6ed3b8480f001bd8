package io.etcdrunbooks.runtime.schedules;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

/**
 * Whether the worker keeps the Temporal Schedules of the inventory's clusters at its start ({@link
 * RunbookSchedules}); a cluster opts out with {@code backup.schedule: false}.
 *
 * @param enabled false: the worker neither creates, updates nor deletes any schedule
 */
@ConfigurationProperties("runbooks.schedules")
public record SchedulesConfig(@Bindable(defaultValue = "true") boolean enabled) {}
