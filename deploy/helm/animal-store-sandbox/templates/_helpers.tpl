{{/* The chart's name, and the release's resources' name (63 characters at most, as DNS names). */}}
{{- define "sandbox.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "sandbox.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "sandbox.selectorLabels" -}}
app.kubernetes.io/name: {{ include "sandbox.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "sandbox.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "sandbox.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: sandbox
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* "true" in the shared shape: a database holds the data, and replicas share it. */}}
{{- define "sandbox.shared" -}}
{{- if or .Values.database.url .Values.database.existingSecret }}true{{ end }}
{{- end }}

{{/* Whether the chart makes a Secret: for the values given inline rather than in a Secret of one's own. */}}
{{- define "sandbox.ownSecret" -}}
{{- if or .Values.database.url (and (not .Values.auth.existingSecret) (or .Values.auth.apiKeys .Values.auth.adminToken)) }}true{{ end }}
{{- end }}
