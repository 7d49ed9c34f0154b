Unicode true

## Clanker's Windows installer, built by `wails build -platform windows/amd64 -nsis`
## (run through build/dist.sh, which stages the repository first).
##
## Wails regenerates wails_tools.nsh next to this file on every build and fills it from
## wails.json; anything defined here before the include wins over wails.json.
##
## build/dist.sh also writes version.nsh here with the version derived from git:
##   CLANKER_VERSION          the full version shown to people ("1.2.0", "0.0.0-dev+g1a2b3c4")
##   CLANKER_VERSION_NUMERIC  its leading X.Y.Z, because Windows version resources only hold
##                            four 16-bit numbers
## A plain `wails build -nsis` without dist.sh has no version.nsh and falls back to
## wails.json's info.productVersion for both.
!include /NONFATAL "version.nsh"
!ifdef CLANKER_VERSION
  !define INFO_PRODUCTVERSION "${CLANKER_VERSION}"
!endif

# One uninstall entry named "Clanker" (Wails' default would be company + product).
!define UNINST_KEY_NAME "Clanker"

!include "wails_tools.nsh"

!ifndef CLANKER_VERSION_NUMERIC
  !define CLANKER_VERSION_NUMERIC "${INFO_PRODUCTVERSION}"
!endif

# Version information of the installer file itself (Properties > Details in Explorer).
VIProductVersion "${CLANKER_VERSION_NUMERIC}.0"
VIFileVersion    "${CLANKER_VERSION_NUMERIC}.0"

VIAddVersionKey "CompanyName"     "${INFO_COMPANYNAME}"
VIAddVersionKey "FileDescription" "${INFO_PRODUCTNAME} Setup"
VIAddVersionKey "ProductVersion"  "${INFO_PRODUCTVERSION}"
VIAddVersionKey "FileVersion"     "${INFO_PRODUCTVERSION}"
VIAddVersionKey "LegalCopyright"  "${INFO_COPYRIGHT}"
VIAddVersionKey "ProductName"     "${INFO_PRODUCTNAME}"

ManifestDPIAware true

!include "MUI.nsh"

!define MUI_ICON "..\icon.ico"
!define MUI_UNICON "..\icon.ico"
!define MUI_FINISHPAGE_NOAUTOCLOSE
!define MUI_ABORTWARNING

!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH

!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES

!insertmacro MUI_LANGUAGE "English"

Name "${INFO_PRODUCTNAME} ${INFO_PRODUCTVERSION}"
BrandingText "${INFO_PRODUCTNAME} ${INFO_PRODUCTVERSION}"
OutFile "..\..\bin\${INFO_PROJECTNAME}-${ARCH}-installer.exe"

# Per-machine install (the default) goes to Program Files\Clanker; `wails build
# -installscope user` makes a per-user installer that needs no administrator rights.
!ifdef WAILS_INSTALL_SCOPE
  !if "${WAILS_INSTALL_SCOPE}" == "user"
    InstallDir "$LOCALAPPDATA\Programs\${INFO_PRODUCTNAME}"
  !else
    InstallDir "$PROGRAMFILES64\${INFO_PRODUCTNAME}"
  !endif
!else
  InstallDir "$PROGRAMFILES64\${INFO_PRODUCTNAME}"
!endif
ShowInstDetails show
ShowUninstDetails show

Function .onInit
   !insertmacro wails.checkArchitecture
FunctionEnd

Section
    !insertmacro wails.setShellContext

    # Runs Microsoft's small WebView2 bootstrapper only when the runtime is missing
    # (Windows 11 and current Windows 10 already have it).
    !insertmacro wails.webview2runtime

    SetOutPath $INSTDIR

    !insertmacro wails.files

    CreateShortcut "$SMPROGRAMS\${INFO_PRODUCTNAME}.lnk" "$INSTDIR\${PRODUCT_EXECUTABLE}"
    CreateShortCut "$DESKTOP\${INFO_PRODUCTNAME}.lnk" "$INSTDIR\${PRODUCT_EXECUTABLE}"

    !insertmacro wails.associateFiles
    !insertmacro wails.associateCustomProtocols

    !insertmacro wails.writeUninstaller
SectionEnd

Section "uninstall"
    !insertmacro wails.setShellContext

    # The WebView2 browser profile Wails keeps next to the user's roaming profile (cookies,
    # the Google Messages pairing). Clanker's own data in %AppData%\Clanker (settings,
    # conversation state) is deliberately left alone so a reinstall picks it up again;
    # INSTALL.md tells people how to remove it.
    RMDir /r "$AppData\${PRODUCT_EXECUTABLE}"

    RMDir /r $INSTDIR

    Delete "$SMPROGRAMS\${INFO_PRODUCTNAME}.lnk"
    Delete "$DESKTOP\${INFO_PRODUCTNAME}.lnk"

    !insertmacro wails.unassociateFiles
    !insertmacro wails.unassociateCustomProtocols

    !insertmacro wails.deleteUninstaller
SectionEnd
