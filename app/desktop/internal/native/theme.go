package native

// Theme is the light or dark preference handed to the toolkit, with the numbers of the
// freedesktop settings portal's color-scheme (package session's ColorScheme converts to
// it directly).
type Theme uint32

const (
	// ThemeDefault gives the decision back to the toolkit's own theme settings.
	ThemeDefault Theme = 0
	// ThemeDark asks for the dark variant of the theme.
	ThemeDark Theme = 1
	// ThemeLight asks for the light variant.
	ThemeLight Theme = 2
)
