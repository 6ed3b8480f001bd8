package io.etcdrunbooks.api.codec;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.etcdrunbooks.api.ApiError;
import io.etcdrunbooks.api.auth.Access;
import io.etcdrunbooks.api.auth.ApiAction;
import io.etcdrunbooks.runtime.codec.AesGcmPayloadCodec;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Consumes;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.common.v1.Payloads;
import io.temporal.payload.codec.PayloadCodecException;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The codec server the Temporal Web UI and CLI call to show encrypted histories: {@code POST
 * .../encode} and {@code POST .../decode} with Temporal {@code Payloads} in protobuf JSON form, as
 * in {@code {"payloads":[{"metadata":{"encoding":"<base64>"},"data":"<base64>"}]}}. Needs a viewer
 * token (see {@link ApiAction#CODEC}).
 */
@Controller("/api/v1/codec")
@ExecuteOn(TaskExecutors.BLOCKING)
public final class CodecController {

  private static final JsonFormat.Parser PARSER = JsonFormat.parser().ignoringUnknownFields();
  private static final JsonFormat.Printer PRINTER =
      JsonFormat.printer().omittingInsignificantWhitespace();

  private final AesGcmPayloadCodec codec;

  public CodecController(@Nullable AesGcmPayloadCodec codec) {
    this.codec = codec;
  }

  @Post("/encode")
  @Access(ApiAction.CODEC)
  @Consumes(MediaType.ALL)
  public HttpResponse<?> encode(@Body @Nullable String body) {
    return convert(body, payloads -> codec.encode(payloads));
  }

  @Post("/decode")
  @Access(ApiAction.CODEC)
  @Consumes(MediaType.ALL)
  public HttpResponse<?> decode(@Body @Nullable String body) {
    return convert(body, payloads -> codec.decode(payloads));
  }

  private HttpResponse<?> convert(String body, UnaryOperator<List<Payload>> operation) {
    if (codec == null) {
      return HttpResponse.notFound(
          new ApiError(
              "payload encryption is off (runbooks.codec.keys-file is not set): Temporal"
                  + " histories are plaintext and need no codec endpoint; see docs/configuration.md"));
    }
    Payloads.Builder in = Payloads.newBuilder();
    try {
      PARSER.merge(body == null ? "" : body, in);
    } catch (InvalidProtocolBufferException | RuntimeException e) {
      // the parser's message can quote the body, which may be plaintext to encode: it is not passed
      // on
      return HttpResponse.badRequest(
          new ApiError(
              "the body is not Temporal Payloads in protobuf JSON form:"
                  + " {\"payloads\":[{\"metadata\":{\"encoding\":\"<base64>\"},\"data\":\"<base64>\"}]}"));
    }
    try {
      Payloads out =
          Payloads.newBuilder().addAllPayloads(operation.apply(in.getPayloadsList())).build();
      return HttpResponse.ok(PRINTER.print(out)).contentType(MediaType.APPLICATION_JSON_TYPE);
    } catch (PayloadCodecException e) {
      return HttpResponse.badRequest(new ApiError(e.getMessage()));
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("cannot print payloads as JSON", e);
    }
  }
}
