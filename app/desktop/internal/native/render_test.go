package native

import (
	"reflect"
	"testing"
)

func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func settingsMap(t *testing.T, s []EnvSetting) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, e := range s {
		if e.Why == "" {
			t.Errorf("%s is set without a reason for the log", e.Name)
		}
		m[e.Name] = e.Value
	}
	return m
}

func TestCPURenderingEnv(t *testing.T) {
	tests := []struct {
		name  string
		env   map[string]string
		nodes []string
		want  map[string]string
	}{
		{
			name:  "clean environment, one GPU",
			nodes: []string{"/dev/dri/renderD128"},
			want: map[string]string{
				"GDK_GL":                         "disable",
				"WEBKIT_DISABLE_DMABUF_RENDERER": "1",
				"WEBKIT_WEB_RENDER_DEVICE_FILE":  "/dev/dri/renderD128",
			},
		},
		{
			name:  "two GPUs: the lowest-numbered node",
			nodes: []string{"/dev/dri/renderD129", "/dev/dri/renderD128"},
			want: map[string]string{
				"GDK_GL":                         "disable",
				"WEBKIT_DISABLE_DMABUF_RENDERER": "1",
				"WEBKIT_WEB_RENDER_DEVICE_FILE":  "/dev/dri/renderD128",
			},
		},
		{
			name: "no GPU: no device named, as EGL would name none",
			want: map[string]string{
				"GDK_GL":                         "disable",
				"WEBKIT_DISABLE_DMABUF_RENDERER": "1",
			},
		},
		{
			name:  "the user's own values win",
			env:   map[string]string{"GDK_GL": "always", "WEBKIT_WEB_RENDER_DEVICE_FILE": "/dev/dri/renderD130"},
			nodes: []string{"/dev/dri/renderD128"},
			want:  map[string]string{"WEBKIT_DISABLE_DMABUF_RENDERER": "1"},
		},
		{
			name:  "the user chose the DMA-BUF renderer: WebKit needs EGL, nothing of it is touched",
			env:   map[string]string{"WEBKIT_DISABLE_DMABUF_RENDERER": "0"},
			nodes: []string{"/dev/dri/renderD128"},
			want:  map[string]string{"GDK_GL": "disable"},
		},
		{
			name:  "an empty WEBKIT_DISABLE_DMABUF_RENDERER disables it (WebKit reads anything but 0 so)",
			env:   map[string]string{"WEBKIT_DISABLE_DMABUF_RENDERER": ""},
			nodes: []string{"/dev/dri/renderD128"},
			want: map[string]string{
				"GDK_GL":                        "disable",
				"WEBKIT_WEB_RENDER_DEVICE_FILE": "/dev/dri/renderD128",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nodes := append([]string(nil), tt.nodes...)
			got := settingsMap(t, CPURenderingEnv(envOf(tt.env), tt.nodes))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			if !reflect.DeepEqual(nodes, tt.nodes) {
				t.Errorf("the caller's node list was reordered: %v", tt.nodes)
			}
		})
	}
}
