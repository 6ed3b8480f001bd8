package io.etcdrunbooks.worker;

import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.encoder.EncoderBase;

/**
 * The worker's log encoder, by {@code format} (logback.xml gives it ETCD_RUNBOOKS_LOG_FORMAT):
 * {@code text}, the pattern, or {@code json}, {@link JsonLogEncoder}. One appender whatever the
 * format, so logback has nothing to warn about at start.
 */
public class LogEncoder extends EncoderBase<ILoggingEvent> {

  private String format = "text";
  private String pattern = "%msg%n";
  private Encoder<ILoggingEvent> delegate;

  public void setFormat(String format) {
    this.format = format == null ? "" : format.trim();
  }

  public void setPattern(String pattern) {
    this.pattern = pattern;
  }

  @Override
  public void start() {
    if (format.equals("json")) {
      JsonLogEncoder json = new JsonLogEncoder();
      json.setWithSequenceNumber(false);
      json.setWithNanoseconds(false);
      json.setWithContext(false);
      json.setWithArguments(false);
      json.setWithMessage(false);
      json.setWithFormattedMessage(true);
      delegate = json;
    } else {
      if (!format.equals("text"))
        addError(
            "ETCD_RUNBOOKS_LOG_FORMAT is '%s': it must be text or json; logging as text"
                .formatted(format));
      PatternLayoutEncoder text = new PatternLayoutEncoder();
      text.setPattern(pattern);
      delegate = text;
    }
    delegate.setContext(getContext());
    delegate.start();
    super.start();
  }

  @Override
  public void stop() {
    if (delegate != null) delegate.stop();
    super.stop();
  }

  @Override
  public byte[] headerBytes() {
    return delegate.headerBytes();
  }

  @Override
  public byte[] encode(ILoggingEvent event) {
    return delegate.encode(event);
  }

  @Override
  public byte[] footerBytes() {
    return delegate.footerBytes();
  }
}
