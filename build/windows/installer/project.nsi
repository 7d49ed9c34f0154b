## Clanker's Windows installer, built by `wails build -platform windows/amd64 -nsis`
## (run through build/dist.sh, which stages the repository first).
##
## The installer is a 64-bit program, like the app it installs, where the NSIS build has
## the 64-bit stubs (Debian's and Ubuntu's nsis packages do; the official Windows builds
## of NSIS do not, and then it stays a 32-bit Unicode installer). A 64-bit installer also
## runs under Wine without its 32-bit part, which is how make test-windows installs and
## uninstalls it (tests/wintest).
!if /FileExists "${NSISDIR}\Stubs\zlib-amd64-unicode"
  Target amd64-unicode
!else
  Unicode true
!endif
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
# NSIS's best compression: LZMA over all files as one solid block, with a 64 MB dictionary
# that holds the whole clanker.exe. NSIS's default, zlib, made a 13.1 MB setup; this makes
# 9.8 MB (issue 17's target is 10 MB).
# /FINAL keeps a later SetCompressor (e.g. from wails_tools.nsh) from undoing it.
SetCompressor /SOLID /FINAL lzma
SetCompressorDictSize 64

!include /NONFATAL "version.nsh"
!ifdef CLANKER_VERSION
  !define INFO_PRODUCTVERSION "${CLANKER_VERSION}"
!endif

# One uninstall entry named "Clanker" (Wails' default would be company + product).
!define UNINST_KEY_NAME "Clanker"

# The application user model id Windows toasts are shown under. The Start-menu shortcut
# carries it, the app sets it on its process and registers it under
# HKCU\Software\Classes\AppUserModelId (app/desktop/session/toast.go holds the same
# string: change both together).
!define CLANKER_AUMID "ClankerDesktop.Clanker"
# The value the app writes under the user's Run key when "start at login" is on
# (app/desktop/session/autostart_windows.go).
!define CLANKER_RUN_KEY "Software\Microsoft\Windows\CurrentVersion\Run"
!define CLANKER_RUN_VALUE "Clanker"

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

# clanker.setShortcutAUMID sets System.AppUserModel.ID on an existing shortcut, through
# the shell's IShellLinkW, IPersistFile and IPropertyStore (NSIS has no command for it):
# the shortcut is what lets Windows show the app's toasts. A failure is only logged; the
# app also registers its id in the registry, which is enough on current Windows.
!macro clanker.setShortcutAUMID LNK AUMID
  Push $0
  Push $1
  Push $2
  Push $3
  Push $4
  Push $5
  Push $6
  StrCpy $2 0
  StrCpy $3 0
  # CoCreateInstance(CLSID_ShellLink, NULL, CLSCTX_INPROC_SERVER, IID_IShellLinkW, &$1)
  System::Call 'ole32::CoCreateInstance(g "{00021401-0000-0000-C000-000000000046}", p 0, i 1, g "{000214F9-0000-0000-C000-000000000046}", *p .r1) i .r0'
  ${If} $0 = 0
    System::Call '$1->0(g "{0000010B-0000-0000-C000-000000000046}", *p .r2) i .r0' ; QueryInterface IPersistFile
  ${EndIf}
  ${If} $0 = 0
    System::Call '$2->5(w "${LNK}", i 2) i .r0' ; IPersistFile::Load(path, STGM_READWRITE)
  ${EndIf}
  ${If} $0 = 0
    System::Call '$1->0(g "{886D8EEB-8CF2-4446-8D02-CDBA1DBDCF99}", *p .r3) i .r0' ; QueryInterface IPropertyStore
  ${EndIf}
  ${If} $0 = 0
    # PROPVARIANT {VT_LPWSTR, pointer to the id}; PKEY_AppUserModel_ID = {9F4C2855-...}, 5
    System::Call '*(&w128 "${AUMID}") p .r4'
    System::Call '*(&i2 31, &i2 0, &i2 0, &i2 0, p r4, p 0) p .r5'
    System::Call '*(g "{9F4C2855-9F79-4B39-A8D0-E1D42DE1D5F3}", i 5) p .r6'
    System::Call '$3->6(p r6, p r5) i .r0' ; IPropertyStore::SetValue
    ${If} $0 = 0
      System::Call '$3->7() i .r0' ; IPropertyStore::Commit
    ${EndIf}
    ${If} $0 = 0
      System::Call '$2->6(p 0, i 1) i .r0' ; IPersistFile::Save(NULL, TRUE)
    ${EndIf}
    System::Free $6
    System::Free $5
    System::Free $4
  ${EndIf}
  ${If} $0 != 0
    DetailPrint "Could not give the shortcut its app id (HRESULT $0)."
  ${EndIf}
  ${If} $3 != 0
    System::Call '$3->2()'
  ${EndIf}
  ${If} $2 != 0
    System::Call '$2->2()'
  ${EndIf}
  ${If} $1 != 0
    System::Call '$1->2()'
  ${EndIf}
  Pop $6
  Pop $5
  Pop $4
  Pop $3
  Pop $2
  Pop $1
  Pop $0
!macroend

# clanker.stopRunning ends every running clanker.exe (the settings window is one too;
# WebView2's processes end with the program that hosts them) before its files are
# replaced or removed: Windows cannot delete or overwrite a running program, and a
# running Clanker would go on writing while the uninstaller removes its WebView2
# profile. It is forced, because closing Clanker's window only hides it in the tray; its
# database is made to survive being stopped at any moment (tests/crash kills it
# mid-reply). taskkill answers 128 when none was running.
!macro clanker.stopRunning
  nsExec::ExecToLog '"$SYSDIR\taskkill.exe" /F /IM "${PRODUCT_EXECUTABLE}"'
  Pop $0
  ${If} $0 = 0
    DetailPrint "Stopped the running Clanker."
    Sleep 500 ; let Windows release the program's files
  ${EndIf}
!macroend

Section
    !insertmacro wails.setShellContext

    # An update over a running Clanker.
    !insertmacro clanker.stopRunning

    # Runs Microsoft's small WebView2 bootstrapper only when the runtime is missing
    # (Windows 11 and current Windows 10 already have it).
    !insertmacro wails.webview2runtime

    SetOutPath $INSTDIR

    !insertmacro wails.files

    CreateShortcut "$SMPROGRAMS\${INFO_PRODUCTNAME}.lnk" "$INSTDIR\${PRODUCT_EXECUTABLE}"
    !insertmacro clanker.setShortcutAUMID "$SMPROGRAMS\${INFO_PRODUCTNAME}.lnk" "${CLANKER_AUMID}"
    CreateShortCut "$DESKTOP\${INFO_PRODUCTNAME}.lnk" "$INSTDIR\${PRODUCT_EXECUTABLE}"

    !insertmacro wails.associateFiles
    !insertmacro wails.associateCustomProtocols

    !insertmacro wails.writeUninstaller
SectionEnd

Section "uninstall"
    !insertmacro clanker.stopRunning

    # What the app created for the user who runs it: the WebView2 browser profile Wails
    # keeps in the user's roaming profile (cookies, the Google Messages pairing), the
    # login entry and the toast registration. $AppData must be the user's own here, not
    # the all-users folder the per-machine context below would make it. Clanker's own
    # data in %AppData%\Clanker (settings, conversation state) is deliberately left alone
    # so a reinstall picks it up again; the README tells people how to remove it.
    SetShellVarContext current
    RMDir /r "$AppData\${PRODUCT_EXECUTABLE}"
    DeleteRegValue HKCU "${CLANKER_RUN_KEY}" "${CLANKER_RUN_VALUE}"
    DeleteRegKey HKCU "Software\Classes\AppUserModelId\${CLANKER_AUMID}"

    !insertmacro wails.setShellContext

    RMDir /r $INSTDIR

    Delete "$SMPROGRAMS\${INFO_PRODUCTNAME}.lnk"
    Delete "$DESKTOP\${INFO_PRODUCTNAME}.lnk"

    !insertmacro wails.unassociateFiles
    !insertmacro wails.unassociateCustomProtocols

    !insertmacro wails.deleteUninstaller
SectionEnd
