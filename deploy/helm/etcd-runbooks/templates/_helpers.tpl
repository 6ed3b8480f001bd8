{{/* Names and labels. */}}
{{- define "etcd-runbooks.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "etcd-runbooks.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* Selector labels of one component (worker, api): (list $ "worker") */}}
{{- define "etcd-runbooks.selector" -}}
{{- $ := index . 0 -}}
app.kubernetes.io/name: {{ $.Chart.Name }}
app.kubernetes.io/instance: {{ $.Release.Name }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end -}}

{{- define "etcd-runbooks.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "etcd-runbooks.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "etcd-runbooks.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{- define "etcd-runbooks.inventoryClaim" -}}
{{- default (printf "%s-inventory" (include "etcd-runbooks.fullname" .)) .Values.inventory.persistence.existingClaim -}}
{{- end -}}

{{- define "etcd-runbooks.inventorySeed" -}}
{{- default (printf "%s-inventory-seed" (include "etcd-runbooks.fullname" .)) .Values.inventory.existingConfigMap -}}
{{- end -}}

{{- define "etcd-runbooks.backupsClaim" -}}
{{- default (printf "%s-backups" (include "etcd-runbooks.fullname" .)) .Values.backups.persistence.existingClaim -}}
{{- end -}}

{{/*
The Secrets a component reads, as a YAML list of {volume, secret, dir}: (list $ "worker"). The files of each are
copied into /etc/etcd-runbooks/secrets/<dir>/ by the pod's init container.
*/}}
{{- define "etcd-runbooks.secretSources" -}}
{{- $ := index . 0 -}}
{{- $component := index . 1 -}}
{{- $s := $.Values.secrets -}}
{{- $all := list
  (list "ssh" $s.ssh "ssh" (list "worker"))
  (list "etcd-tls" $s.etcdClientTls "etcd-tls" (list "worker" "api"))
  (list "backup-keys" $s.backupKeys "backup-keys" (list "worker"))
  (list "codec" $s.codecKeys "codec" (list "worker" "api"))
  (list "api-tokens" $s.apiTokens "api-tokens" (list "api"))
  (list "slack" $s.slack "slack" (list "worker" "api"))
  (list "kubeconfigs" $s.kubeconfigs "kubeconfigs" (list "worker"))
  (list "s3" $s.objectStoreCredentials "s3" (list "worker"))
  (list "temporal-tls" $.Values.temporal.tls.secret "temporal-tls" (list "worker" "api"))
  (list "temporal-api-key" $.Values.temporal.apiKeySecret "temporal-api-key" (list "worker" "api")) -}}
{{- range $all }}
{{- if and (index . 1) (has $component (index . 3)) }}
- {volume: {{ printf "secret-%s" (index . 0) }}, secret: {{ index . 1 | quote }}, dir: {{ index . 2 }}}
{{- end }}
{{- end }}
{{- end -}}

{{/* What a component's pods need that the chart does not create, for the annotation and the docs. */}}
{{- define "etcd-runbooks.externalReferences" -}}
{{- $ := index . 0 -}}
{{- $component := index . 1 -}}
{{- $refs := list -}}
{{- range (include "etcd-runbooks.secretSources" (list $ $component) | fromYamlArray) }}
{{- $refs = append $refs (printf "Secret/%s" .secret) -}}
{{- end }}
{{- if $.Values.inventory.existingConfigMap }}{{ $refs = append $refs (printf "ConfigMap/%s" $.Values.inventory.existingConfigMap) }}{{ end }}
{{- if and (eq $.Values.inventory.store "file") $.Values.inventory.persistence.existingClaim }}{{ $refs = append $refs (printf "PersistentVolumeClaim/%s" $.Values.inventory.persistence.existingClaim) }}{{ end }}
{{- if and (eq $component "worker") (eq $.Values.backups.type "persistentVolumeClaim") $.Values.backups.persistence.existingClaim }}{{ $refs = append $refs (printf "PersistentVolumeClaim/%s" $.Values.backups.persistence.existingClaim) }}{{ end }}
{{- join "," $refs -}}
{{- end -}}

{{/*
The init container: copies every Secret's files into the memory volume `secrets`, owned by the pod's user, mode 0400
(Secret volumes give root:fsGroup 0440, which the runbooks refuse for a secret file), and, in a worker, seeds the
shared inventory from the ConfigMap once.
*/}}
{{- define "etcd-runbooks.prepareContainer" -}}
{{- $ := index . 0 -}}
{{- $component := index . 1 -}}
- name: prepare
  image: {{ include "etcd-runbooks.image" $ }}
  imagePullPolicy: {{ $.Values.image.pullPolicy }}
  command: ["/bin/sh", "-c"]
  args:
    - |
      set -eu
      umask 077
      for src in /etc/etcd-runbooks/secret-sources/*/; do
        [ -d "$src" ] || continue
        dst=/etc/etcd-runbooks/secrets/$(basename "$src")
        mkdir -p "$dst"
        for f in "$src"*; do
          if [ -f "$f" ]; then cat "$f" >"$dst/$(basename "$f")"; chmod 0400 "$dst/$(basename "$f")"; fi
        done
      done
      {{- if and (eq $component "worker") (eq $.Values.inventory.store "file") }}
      if [ ! -f /etc/etcd-runbooks/inventory/inventory.yaml ]; then
        cp /etc/etcd-runbooks/inventory-seed/inventory.yaml /etc/etcd-runbooks/inventory/inventory.yaml.new
        mv /etc/etcd-runbooks/inventory/inventory.yaml.new /etc/etcd-runbooks/inventory/inventory.yaml
        echo "inventory seeded from the ConfigMap {{ include "etcd-runbooks.inventorySeed" $ }}"
      fi
      {{- end }}
  securityContext: {{- toYaml $.Values.securityContext | nindent 4 }}
  resources:
    requests: {cpu: 10m, memory: 16Mi}
    limits: {memory: 64Mi}
  volumeMounts:
    - {name: secrets, mountPath: /etc/etcd-runbooks/secrets}
    {{- range (include "etcd-runbooks.secretSources" (list $ $component) | fromYamlArray) }}
    - {name: {{ .volume }}, mountPath: /etc/etcd-runbooks/secret-sources/{{ .dir }}, readOnly: true}
    {{- end }}
    {{- if and (eq $component "worker") (eq $.Values.inventory.store "file") }}
    - {name: inventory, mountPath: /etc/etcd-runbooks/inventory}
    - {name: inventory-seed, mountPath: /etc/etcd-runbooks/inventory-seed, readOnly: true}
    {{- end }}
{{- end -}}

{{/* The main container of a component: (list $ "worker" .Values.worker) */}}
{{- define "etcd-runbooks.container" -}}
{{- $ := index . 0 -}}
{{- $component := index . 1 -}}
{{- $c := index . 2 -}}
- name: {{ $component }}
  image: {{ include "etcd-runbooks.image" $ }}
  imagePullPolicy: {{ $.Values.image.pullPolicy }}
  args: ["run", "--roles={{ $component }}"]
  env:
    - {name: MICRONAUT_CONFIG_FILES, value: /etc/etcd-runbooks/config/application.yml}
    - {name: HOME, value: /tmp}
    - {name: JAVA_TOOL_OPTIONS, value: {{ printf "%s -Djava.io.tmpdir=/tmp" $c.javaOpts | quote }}}
    {{- with $c.extraEnv }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  ports:
    - {name: http, containerPort: 8080}
  # the process only: a Temporal outage must not restart every pod (it makes them unready instead)
  startupProbe: {httpGet: {path: /health/live, port: http}, periodSeconds: 5, failureThreshold: 36}
  livenessProbe: {httpGet: {path: /health/live, port: http}, periodSeconds: 20, timeoutSeconds: 5, failureThreshold: 3}
  # Temporal answers (and, in a worker, the worker polls)
  readinessProbe: {httpGet: {path: /health, port: http}, periodSeconds: 10, timeoutSeconds: 5}
  securityContext: {{- toYaml $.Values.securityContext | nindent 4 }}
  resources: {{- toYaml $c.resources | nindent 4 }}
  volumeMounts:
    - {name: config, mountPath: /etc/etcd-runbooks/config, readOnly: true}
    - {name: secrets, mountPath: /etc/etcd-runbooks/secrets, readOnly: true}
    - {name: tmp, mountPath: /tmp}
    - {name: inventory, mountPath: /etc/etcd-runbooks/inventory{{ if or (ne $component "worker") (ne $.Values.inventory.store "file") }}, readOnly: true{{ end }}}
    {{- if eq $component "worker" }}
    - {name: backups, mountPath: {{ $.Values.backups.mountPath }}}
    - {name: downloads, mountPath: /var/lib/etcd-runbooks/downloads}
    {{- end }}
{{- end -}}

{{/* The volumes of a component's pods. */}}
{{- define "etcd-runbooks.volumes" -}}
{{- $ := index . 0 -}}
{{- $component := index . 1 -}}
- {name: config, configMap: {name: {{ include "etcd-runbooks.fullname" $ }}-config}}
- {name: secrets, emptyDir: {medium: Memory, sizeLimit: 8Mi}}
- {name: tmp, emptyDir: {sizeLimit: 1Gi}}
{{- if eq $.Values.inventory.store "file" }}
- {name: inventory, persistentVolumeClaim: {claimName: {{ include "etcd-runbooks.inventoryClaim" $ }}{{ if ne $component "worker" }}, readOnly: true{{ end }}}}
{{- else }}
{{- /* the operator's inventory as it is, read-only: runbooks record their changes in Temporal */}}
- {name: inventory, configMap: {name: {{ include "etcd-runbooks.inventorySeed" $ }}}}
{{- end }}
{{- if eq $component "worker" }}
{{- if eq $.Values.inventory.store "file" }}
- {name: inventory-seed, configMap: {name: {{ include "etcd-runbooks.inventorySeed" $ }}}}
{{- end }}
{{- if eq $.Values.backups.type "emptyDir" }}
- {name: backups, emptyDir: {}}
{{- else }}
- {name: backups, persistentVolumeClaim: {claimName: {{ include "etcd-runbooks.backupsClaim" $ }}}}
{{- end }}
- {name: downloads, emptyDir: {sizeLimit: 2Gi}}
{{- end }}
{{- range (include "etcd-runbooks.secretSources" (list $ $component) | fromYamlArray) }}
- {name: {{ .volume }}, secret: {secretName: {{ .secret }}, defaultMode: 0440}}
{{- end }}
{{- end -}}

{{/* A component's Deployment: (list $ "worker" .Values.worker) */}}
{{- define "etcd-runbooks.deployment" -}}
{{- $ := index . 0 -}}
{{- $component := index . 1 -}}
{{- $c := index . 2 -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "etcd-runbooks.fullname" $ }}-{{ $component }}
  labels:
    {{- include "etcd-runbooks.labels" $ | nindent 4 }}
    app.kubernetes.io/component: {{ $component }}
spec:
  replicas: {{ $c.replicas }}
  selector:
    matchLabels:
      {{- include "etcd-runbooks.selector" (list $ $component) | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "etcd-runbooks.selector" (list $ $component) | nindent 8 }}
      annotations:
        checksum/config: {{ include (print $.Template.BasePath "/configmap.yaml") $ | sha256sum }}
        etcd-runbooks.io/external-references: {{ include "etcd-runbooks.externalReferences" (list $ $component) | quote }}
    spec:
      serviceAccountName: {{ include "etcd-runbooks.serviceAccountName" $ }}
      automountServiceAccountToken: false
      securityContext: {{- toYaml $.Values.podSecurityContext | nindent 8 }}
      {{- with $.Values.imagePullSecrets }}
      imagePullSecrets: {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- if eq $component "worker" }}
      terminationGracePeriodSeconds: {{ $c.terminationGracePeriodSeconds }}
      {{- end }}
      initContainers:
        {{- include "etcd-runbooks.prepareContainer" (list $ $component) | nindent 8 }}
      containers:
        {{- include "etcd-runbooks.container" (list $ $component $c) | nindent 8 }}
      volumes:
        {{- include "etcd-runbooks.volumes" (list $ $component) | nindent 8 }}
      {{- with $c.nodeSelector }}
      nodeSelector: {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $c.tolerations }}
      tolerations: {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- if $c.affinity }}
      affinity: {{- toYaml $c.affinity | nindent 8 }}
      {{- else if gt (int $c.replicas) 1 }}
      affinity:
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
            - weight: 100
              podAffinityTerm:
                topologyKey: kubernetes.io/hostname
                labelSelector:
                  matchLabels:
                    {{- include "etcd-runbooks.selector" (list $ $component) | nindent 20 }}
      {{- end }}
{{- end -}}
