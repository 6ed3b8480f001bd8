package io.etcdrunbooks.worker;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the objects of a rendered manifest use without defining: every volume's ConfigMap, Secret
 * and claim, every env and envFrom reference, the ServiceAccount, every volume mount's volume,
 * every Ingress backend's Service and every Service's pods must be objects of the manifest, or
 * named in the pod template's {@value #EXTERNAL} annotation (the chart writes there what its values
 * say the operator creates: Secrets, an inventory ConfigMap or claim of their own).
 */
final class ManifestReferences {

  static final String EXTERNAL = "etcd-runbooks.io/external-references";

  private static final Map<String, String> POD_SPEC =
      Map.of(
          "Deployment", "/spec/template",
          "StatefulSet", "/spec/template",
          "DaemonSet", "/spec/template",
          "Job", "/spec/template",
          "CronJob", "/spec/jobTemplate/spec/template");

  private ManifestReferences() {}

  /** Each reference that resolves to nothing, as "Kind/name: what uses it". */
  static List<String> unresolved(List<JsonNode> objects) {
    Set<String> defined = new HashSet<>();
    for (JsonNode o : objects) defined.add(key(o.path("kind").asText(), name(o)));
    List<String> missing = new ArrayList<>();
    List<JsonNode> templates = new ArrayList<>();
    for (JsonNode o : objects) {
      String kind = o.path("kind").asText();
      String owner = kind + "/" + name(o);
      if (POD_SPEC.containsKey(kind)) {
        JsonNode template = o.at(POD_SPEC.get(kind));
        templates.add(template);
        checkPod(owner, template, defined, missing);
      }
      if (kind.equals("Ingress")) {
        for (JsonNode backend : o.findValues("service")) {
          String service = backend.path("name").asText();
          if (!defined.contains(key("Service", service))) {
            missing.add("Service/" + service + ": backend of " + owner);
          }
        }
      }
    }
    for (JsonNode o : objects) {
      if (!o.path("kind").asText().equals("Service")) continue;
      JsonNode selector = o.at("/spec/selector");
      boolean selects =
          templates.stream()
              .anyMatch(t -> matches(selector, t.at("/metadata/labels")) && !selector.isEmpty());
      if (!selects) missing.add("pods of Service/" + name(o) + ": no pod template has " + selector);
    }
    return missing;
  }

  private static void checkPod(
      String owner, JsonNode template, Set<String> defined, List<String> missing) {
    Set<String> external = new HashSet<>();
    for (String ref : template.at("/metadata/annotations").path(EXTERNAL).asText().split(",")) {
      if (!ref.isBlank()) external.add(ref.trim());
    }
    JsonNode spec = template.path("spec");
    String account = spec.path("serviceAccountName").asText("default");
    if (!account.equals("default")) {
      require("ServiceAccount", account, owner, defined, external, missing);
    }
    Set<String> volumes = new HashSet<>();
    for (JsonNode volume : spec.path("volumes")) {
      String user = owner + " volume " + volume.path("name").asText();
      volumes.add(volume.path("name").asText());
      refer(volume.path("configMap"), "ConfigMap", "name", user, defined, external, missing);
      refer(volume.path("secret"), "Secret", "secretName", user, defined, external, missing);
      JsonNode claim = volume.path("persistentVolumeClaim");
      if (!claim.isMissingNode()) {
        require(
            "PersistentVolumeClaim",
            claim.path("claimName").asText(),
            user,
            defined,
            external,
            missing);
      }
      for (JsonNode source : volume.at("/projected/sources")) {
        refer(source.path("configMap"), "ConfigMap", "name", user, defined, external, missing);
        refer(source.path("secret"), "Secret", "name", user, defined, external, missing);
      }
    }
    List<JsonNode> containers = new ArrayList<>();
    spec.path("initContainers").forEach(containers::add);
    spec.path("containers").forEach(containers::add);
    for (JsonNode container : containers) {
      String user = owner + " container " + container.path("name").asText();
      for (JsonNode mount : container.path("volumeMounts")) {
        if (!volumes.contains(mount.path("name").asText())) {
          missing.add("volume " + mount.path("name").asText() + ": mounted by " + user);
        }
      }
      for (JsonNode env : container.path("env")) {
        JsonNode from = env.path("valueFrom");
        refer(from.path("configMapKeyRef"), "ConfigMap", "name", user, defined, external, missing);
        refer(from.path("secretKeyRef"), "Secret", "name", user, defined, external, missing);
      }
      for (JsonNode from : container.path("envFrom")) {
        refer(from.path("configMapRef"), "ConfigMap", "name", user, defined, external, missing);
        refer(from.path("secretRef"), "Secret", "name", user, defined, external, missing);
      }
    }
  }

  /** A reference that may be optional (then it needs nothing). */
  private static void refer(
      JsonNode ref,
      String kind,
      String nameField,
      String user,
      Set<String> defined,
      Set<String> external,
      List<String> missing) {
    if (ref.isMissingNode() || ref.path("optional").asBoolean(false)) return;
    require(kind, ref.path(nameField).asText(), user, defined, external, missing);
  }

  private static void require(
      String kind,
      String name,
      String user,
      Set<String> defined,
      Set<String> external,
      List<String> missing) {
    String key = key(kind, name);
    if (!defined.contains(key) && !external.contains(key)) {
      missing.add(
          key
              + ": used by "
              + user
              + ", neither in the manifest nor in its "
              + EXTERNAL
              + " annotation");
    }
  }

  private static boolean matches(JsonNode selector, JsonNode labels) {
    for (var field : selector.properties()) {
      if (!labels.path(field.getKey()).asText().equals(field.getValue().asText())) return false;
    }
    return true;
  }

  private static String name(JsonNode object) {
    return object.at("/metadata/name").asText();
  }

  private static String key(String kind, String name) {
    return kind + "/" + name;
  }
}
