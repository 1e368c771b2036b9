// Package v1alpha1 contains the TeamQuota API.
// +kubebuilder:object:generate=true
// +groupName=quota.riverbend.io
package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	GroupVersion  = schema.GroupVersion{Group: "quota.riverbend.io", Version: "v1alpha1"}
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	AddToScheme   = SchemeBuilder.AddToScheme
)

// TeamQuotaSpec describes the compute budget for every namespace labelled with Team.
type TeamQuotaSpec struct {
	Team string              `json:"team"`
	Hard corev1.ResourceList `json:"hard"`
}

// TeamQuotaStatus reports which namespaces currently carry the generated ResourceQuota.
type TeamQuotaStatus struct {
	Namespaces []string `json:"namespaces,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster

// TeamQuota is the Schema for the teamquotas API.
type TeamQuota struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   TeamQuotaSpec   `json:"spec,omitempty"`
	Status TeamQuotaStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// TeamQuotaList contains a list of TeamQuota.
type TeamQuotaList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []TeamQuota `json:"items"`
}

func init() {
	SchemeBuilder.Register(&TeamQuota{}, &TeamQuotaList{})
}
