package io.etcdrunbooks.api.slack;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * A message for Slack's chat.postMessage: {@code threadTs} makes it a reply in the thread of that
 * message (null: a new message in the channel); {@code text} is the fallback where {@code blocks}
 * cannot be shown.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SlackMessage(
    String channel,
    String text,
    @JsonProperty("thread_ts") String threadTs,
    List<SlackButtons.Block> blocks) {}
