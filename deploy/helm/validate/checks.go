package main

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
)

// The labels every object of the chart carries (the recommended app.kubernetes.io ones).
var requiredLabels = []string{"app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/managed-by"}

func kindOf(object metav1.Object) string {
	return object.(runtime.Object).GetObjectKind().GroupVersionKind().Kind
}

// check returns what a cluster would refuse in object, or what would leave it unused: a selector
// that selects no pod of the render, a port or volume named but not declared.
func check(object metav1.Object, all []metav1.Object) []error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	for _, message := range validation.IsDNS1123Subdomain(object.GetName()) {
		add("metadata.name %q: %s", object.GetName(), message)
	}
	errs = append(errs, checkLabels("metadata.labels", object.GetLabels())...)
	for _, label := range requiredLabels {
		if object.GetLabels()[label] == "" {
			add("metadata.labels: no %s", label)
		}
	}
	switch object := object.(type) {
	case *appsv1.Deployment:
		errs = append(errs, checkDeployment(object)...)
	case *corev1.Service:
		if len(object.Spec.Ports) == 0 {
			add("spec.ports: none")
		}
		pods := podsSelectedBy(labels.SelectorFromSet(object.Spec.Selector), all)
		if len(object.Spec.Selector) == 0 || len(pods) == 0 {
			add("spec.selector %v selects no pod template of the render", object.Spec.Selector)
		}
		for _, port := range object.Spec.Ports {
			if name := port.TargetPort.StrVal; name != "" && !anyDeclaresPort(pods, name) {
				add("spec.ports %q: targetPort %q is no container port of the pods it selects", port.Name, name)
			}
		}
	case *policyv1.PodDisruptionBudget:
		if (object.Spec.MinAvailable == nil) == (object.Spec.MaxUnavailable == nil) {
			add("spec: exactly one of minAvailable and maxUnavailable")
		}
		errs = append(errs, checkSelector("spec.selector", object.Spec.Selector, all)...)
	case *corev1.PersistentVolumeClaim:
		if len(object.Spec.AccessModes) == 0 {
			add("spec.accessModes: none")
		}
		if storage, ok := object.Spec.Resources.Requests[corev1.ResourceStorage]; !ok || storage.IsZero() {
			add("spec.resources.requests.storage: none")
		}
	case *corev1.Secret:
		for key := range object.Data {
			for _, message := range validation.IsConfigMapKey(key) {
				add("data %q: %s", key, message)
			}
		}
	}
	return errs
}

func checkDeployment(deployment *appsv1.Deployment) []error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if deployment.Spec.Replicas == nil || *deployment.Spec.Replicas < 1 {
		add("spec.replicas: none")
	}
	template := deployment.Spec.Template
	errs = append(errs, checkLabels("spec.template.metadata.labels", template.Labels)...)
	if deployment.Spec.Selector == nil || len(deployment.Spec.Selector.MatchLabels) == 0 {
		add("spec.selector: none")
	} else if selector, err := metav1.LabelSelectorAsSelector(deployment.Spec.Selector); err != nil {
		add("spec.selector: %v", err)
	} else if !selector.Matches(labels.Set(template.Labels)) {
		add("spec.selector does not select the pod template's labels (the API refuses it)")
	}
	volumes := map[string]bool{}
	for _, volume := range template.Spec.Volumes {
		volumes[volume.Name] = true
	}
	if len(template.Spec.Containers) == 0 {
		add("spec.template.spec.containers: none")
	}
	for _, container := range template.Spec.Containers {
		at := fmt.Sprintf("container %q", container.Name)
		for _, message := range validation.IsDNS1123Label(container.Name) {
			add("%s: name: %s", at, message)
		}
		if container.Image == "" {
			add("%s: no image", at)
		}
		ports := map[string]bool{}
		for _, port := range container.Ports {
			if port.ContainerPort < 1 || port.ContainerPort > 65535 {
				add("%s: containerPort %d", at, port.ContainerPort)
			}
			ports[port.Name] = true
		}
		for _, env := range container.Env {
			if env.Name == "" || (env.Value != "" && env.ValueFrom != nil) {
				add("%s: env %q: a name, and a value or valueFrom but not both", at, env.Name)
			}
		}
		for probeName, probe := range map[string]*corev1.Probe{"readinessProbe": container.ReadinessProbe, "livenessProbe": container.LivenessProbe} {
			if probe == nil || probe.HTTPGet == nil {
				add("%s: no HTTP %s", at, probeName)
			} else if name := probe.HTTPGet.Port.StrVal; name != "" && !ports[name] {
				add("%s: %s: port %q is not declared", at, probeName, name)
			}
		}
		for _, mount := range container.VolumeMounts {
			if !volumes[mount.Name] {
				add("%s: volumeMount %q names no volume", at, mount.Name)
			}
		}
	}
	return errs
}

func checkLabels(at string, set map[string]string) []error {
	var errs []error
	for key, value := range set {
		for _, message := range append(validation.IsQualifiedName(key), validation.IsValidLabelValue(value)...) {
			errs = append(errs, fmt.Errorf("%s %s=%q: %s", at, key, value, message))
		}
	}
	return errs
}

func checkSelector(at string, selector *metav1.LabelSelector, all []metav1.Object) []error {
	if selector == nil {
		return []error{fmt.Errorf("%s: none", at)}
	}
	parsed, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil {
		return []error{fmt.Errorf("%s: %w", at, err)}
	}
	if parsed.Empty() || len(podsSelectedBy(parsed, all)) == 0 {
		return []error{fmt.Errorf("%s selects no pod template of the render", at)}
	}
	return nil
}

// podsSelectedBy: the pod templates of the render's Deployments that selector matches.
func podsSelectedBy(selector labels.Selector, all []metav1.Object) []corev1.PodTemplateSpec {
	var pods []corev1.PodTemplateSpec
	for _, object := range all {
		if deployment, ok := object.(*appsv1.Deployment); ok && selector.Matches(labels.Set(deployment.Spec.Template.Labels)) {
			pods = append(pods, deployment.Spec.Template)
		}
	}
	return pods
}

func anyDeclaresPort(pods []corev1.PodTemplateSpec, name string) bool {
	for _, pod := range pods {
		for _, container := range pod.Spec.Containers {
			for _, port := range container.Ports {
				if port.Name == name {
					return true
				}
			}
		}
	}
	return false
}
