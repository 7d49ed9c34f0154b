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
		name     string
		env      map[string]string
		want     map[string]string
		noDriver bool
	}{
		{
			name: "clean environment",
			want: map[string]string{
				"GDK_GL":                         "disable",
				"WEBKIT_DISABLE_DMABUF_RENDERER": "1",
			},
			noDriver: true,
		},
		{
			name:     "the user's own values win",
			env:      map[string]string{"GDK_GL": "always"},
			want:     map[string]string{"WEBKIT_DISABLE_DMABUF_RENDERER": "1"},
			noDriver: true,
		},
		{
			name: "the user chose the DMA-BUF renderer: WebKit needs EGL, nothing of it is touched",
			env:  map[string]string{"WEBKIT_DISABLE_DMABUF_RENDERER": "0"},
			want: map[string]string{"GDK_GL": "disable"},
		},
		{
			name:     "an empty WEBKIT_DISABLE_DMABUF_RENDERER disables it (WebKit reads anything but 0 so)",
			env:      map[string]string{"WEBKIT_DISABLE_DMABUF_RENDERER": ""},
			want:     map[string]string{"GDK_GL": "disable"},
			noDriver: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := settingsMap(t, CPURenderingEnv(envOf(tt.env)))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			// Naming the render node would skip WebKit's EGL probe, and with it the watcher
			// of GTK's settings that tells the pages the desktop prefers dark.
			if _, named := got["WEBKIT_WEB_RENDER_DEVICE_FILE"]; named {
				t.Errorf("WEBKIT_WEB_RENDER_DEVICE_FILE is set: the pages would not follow the desktop's dark preference")
			}
			if nd := NoEGLDriverWanted(envOf(tt.env)); nd != tt.noDriver {
				t.Errorf("NoEGLDriverWanted = %v, want %v", nd, tt.noDriver)
			}
		})
	}
}
