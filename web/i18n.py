"""The page's languages: English, Italian, Spanish, Hebrew (right to left), Croatian.

The language comes from ``?lang=`` (remembered in a cookie), else the cookie, else the
browser's Accept-Language. Rule problems keep their detail (piece codes) and get a
translated title from their code.
"""

from __future__ import annotations

from flask import Request

LANGUAGES = {"en": "English", "it": "Italiano", "es": "Español", "he": "עברית", "hr": "Hrvatski"}
RTL = frozenset({"he"})
DEFAULT = "en"

# key: (en, it, es, he, hr)
_TEXT: dict[str, tuple[str, str, str, str, str]] = {
    "app.tagline": (
        "Photograph the melds, get the score.",
        "Fotografa le combinazioni, ottieni il punteggio.",
        "Fotografiá los juegos, obtené el puntaje.",
        "צלמו את הסדרות, קבלו את הניקוד.",
        "Fotografirajte kombinacije, dobijte rezultat.",
    ),
    "nav.games": ("Games", "Partite", "Partidas", "משחקים", "Igre"),
    "nav.check": (
        "Settle a dispute",
        "Risolvi una disputa",
        "Resolver una duda",
        "הכרעה במחלוקת",
        "Riješi spor",
    ),
    "nav.language": ("Language", "Lingua", "Idioma", "שפה", "Jezik"),
    "games.title": ("Games", "Partite", "Partidas", "משחקים", "Igre"),
    "games.none": (
        "No game yet.",
        "Nessuna partita.",
        "Todavía no hay partidas.",
        "אין עדיין משחקים.",
        "Još nema igara.",
    ),
    "games.new": ("New game", "Nuova partita", "Nueva partida", "משחק חדש", "Nova igra"),
    "games.rounds": ("rounds", "mani", "manos", "סיבובים", "runde"),
    "games.finished": ("finished", "finita", "terminada", "הסתיים", "završena"),
    "games.playing": ("in play", "in corso", "en juego", "בתהליך", "u tijeku"),
    "new.title": ("New game", "Nuova partita", "Nueva partida", "משחק חדש", "Nova igra"),
    "new.rules": ("Rules", "Regole", "Reglas", "חוקים", "Pravila"),
    "new.players": ("Players", "Giocatori", "Jugadores", "שחקנים", "Igrači"),
    "new.teams": (
        "4 players play as two teams of two",
        "In 4 si gioca a coppie",
        "De a 4 se juega en parejas",
        "ב-4 משחקים בשתי קבוצות של שניים",
        "Četiri igrača igraju u dva para",
    ),
    "new.side": ("Side", "Squadra", "Equipo", "צד", "Strana"),
    "new.target": (
        "Target score",
        "Punteggio obiettivo",
        "Puntaje a alcanzar",
        "ניקוד יעד",
        "Ciljni rezultat",
    ),
    "new.name": (
        "Name (optional)",
        "Nome (facoltativo)",
        "Nombre (opcional)",
        "שם (רשות)",
        "Naziv (neobavezno)",
    ),
    "new.options": (
        "Table rules",
        "Regole del tavolo",
        "Reglas de la mesa",
        "חוקי השולחן",
        "Pravila stola",
    ),
    "new.start": (
        "Start the game",
        "Inizia la partita",
        "Empezar la partida",
        "התחלת משחק",
        "Započni igru",
    ),
    "game.totals": ("Totals", "Totali", "Totales", "סיכום", "Ukupno"),
    "game.target": ("target", "obiettivo", "meta", "יעד", "cilj"),
    "game.round": ("Round", "Mano", "Mano", "סיבוב", "Runda"),
    "game.add_round": (
        "Enter a round",
        "Inserisci una mano",
        "Cargar una mano",
        "הזנת סיבוב",
        "Unesi rundu",
    ),
    "game.edit": ("Correct", "Correggi", "Corregir", "תיקון", "Ispravi"),
    "game.delete": ("Delete", "Elimina", "Borrar", "מחיקה", "Obriši"),
    "game.confirm_delete": (
        "Delete this round? The totals are recomputed.",
        "Eliminare questa mano? I totali vengono ricalcolati.",
        "¿Borrar esta mano? Se recalculan los totales.",
        "למחוק את הסיבוב? הסיכומים יחושבו מחדש.",
        "Obrisati ovu rundu? Zbrojevi se ponovno računaju.",
    ),
    "game.winner": ("Winner", "Vince", "Gana", "מנצח", "Pobjednik"),
    "game.draw": ("Draw", "Pareggio", "Empate", "תיקו", "Neriješeno"),
    "game.export": ("Export", "Esporta", "Exportar", "ייצוא", "Izvoz"),
    "game.vp": (
        "Victory points",
        "Punti vittoria",
        "Puntos de victoria",
        "נקודות ניצחון",
        "Pobjednički bodovi",
    ),
    "game.void": ("void hand", "mano nulla", "mano anulada", "יד מבוטלת", "poništena ruka"),
    "game.photos": ("Photos", "Foto", "Fotos", "תמונות", "Fotografije"),
    "round.title": ("Round", "Mano", "Mano", "סיבוב", "Runda"),
    "round.photo": (
        "Photograph the melds",
        "Fotografa le combinazioni",
        "Fotografiar los juegos",
        "צילום הסדרות",
        "Fotografiraj kombinacije",
    ),
    "round.reading": (
        "Reading the photo…",
        "Lettura della foto…",
        "Leyendo la foto…",
        "קורא את התמונה…",
        "Čitam fotografiju…",
    ),
    "scan.shaken": (
        "The photo looks shaken: some pieces may be misread or missed. Hold the phone still and "
        "take it again.",
        "La foto sembra mossa: alcune carte potrebbero essere lette male o mancare. Tieni fermo "
        "il telefono e scattala di nuovo.",
        "La foto parece movida: algunas piezas pueden leerse mal o faltar. Sostené quieto el "
        "teléfono y sacala de nuevo.",
        "התמונה נראית מטושטשת מתנועה: ייתכן שחלק מהקלפים נקראו לא נכון או חסרים. החזיקו את "
        "הטלפון יציב וצלמו שוב.",
        "Fotografija izgleda mutno od pokreta: neke karte možda su krivo pročitane ili "
        "nedostaju. Mirno držite mobitel i snimite ponovno.",
    ),
    "scan.colourless": (
        "The photo is black and white: red and black (the tiles' colours) cannot be told apart, "
        "so every suit or colour is a guess. Take it again in colour.",
        "La foto è in bianco e nero: rosso e nero (i colori delle tessere) non si distinguono, "
        "quindi ogni seme o colore è un'ipotesi. Scattala di nuovo a colori.",
        "La foto es en blanco y negro: el rojo y el negro (los colores de las fichas) no se "
        "distinguen, así que cada palo o color es una suposición. Sacala de nuevo en color.",
        "התמונה בשחור-לבן: אי אפשר להבחין בין אדום לשחור (ובצבעי האבנים), כך שכל צורה או צבע "
        "הם ניחוש. צלמו שוב בצבע.",
        "Fotografija je crno-bijela: crvena i crna (boje pločica) ne mogu se razlikovati, pa je "
        "svaka boja nagađanje. Snimite ponovno u boji.",
    ),
    "scan.afar": (
        "The cards are small in this photo: some may be misread or missed. Photograph each "
        "side's melds closer.",
        "Le carte sono piccole in questa foto: alcune potrebbero essere lette male o mancare. "
        "Fotografa più da vicino le combinazioni di ogni squadra.",
        "Las cartas se ven chicas en esta foto: algunas pueden leerse mal o faltar. Sacá más de "
        "cerca los juegos de cada equipo.",
        "הקלפים קטנים מדי בתמונה: ייתכן שחלקם נקראו לא נכון או חסרים. צלמו את הסדרות של כל צד "
        "מקרוב יותר.",
        "Karte su premalene na ovoj fotografiji: neke možda su krivo pročitane ili nedostaju. "
        "Snimite kombinacije svake strane izbliza.",
    ),
    "scan.low_resolution": (
        "This photo has too few pixels: the pieces are tiny in it, and some may be misread or "
        "missed. Send the photo at its full size (not a thumbnail or a shrunk copy).",
        "Questa foto ha troppo pochi pixel: i pezzi sono minuscoli e alcuni potrebbero essere "
        "letti male o mancare. Invia la foto a grandezza piena (non una miniatura o una copia "
        "ridotta).",
        "Esta foto tiene muy pocos píxeles: las piezas se ven diminutas y algunas pueden leerse "
        "mal o faltar. Mandá la foto en su tamaño completo (no una miniatura ni una copia "
        "achicada).",
        "בתמונה יש מעט מדי פיקסלים: הקלפים והאבנים זעירים בה, וייתכן שחלקם נקראו לא נכון או "
        "חסרים. שלחו את התמונה בגודלה המלא (לא תמונה ממוזערת או עותק מוקטן).",
        "Ova fotografija ima premalo piksela: komadi su na njoj sitni, pa neki možda su krivo "
        "pročitani ili nedostaju. Pošaljite fotografiju u punoj veličini (ne minijaturu ni "
        "smanjenu kopiju).",
    ),
    "scan.doubt": (
        "Pieces marked ? were read uncertainly: check them against the photo and tap one to "
        "correct it.",
        "I pezzi segnati con ? sono stati letti con incertezza: controllali sulla foto e "
        "toccane uno per correggerlo.",
        "Las piezas marcadas con ? se leyeron con dudas: comparalas con la foto y tocá una para "
        "corregirla.",
        "פריטים המסומנים ב-? נקראו בחוסר ודאות: בדקו אותם מול התמונה והקישו על פריט כדי לתקן אותו.",
        "Komadi označeni s ? pročitani su nesigurno: provjerite ih na fotografiji i dodirnite "
        "komad da ga ispravite.",
    ),
    "scan.doubt_piece": (
        "Read uncertainly: check it against the photo",
        "Letto con incertezza: controllalo sulla foto",
        "Leído con dudas: comparalo con la foto",
        "נקרא בחוסר ודאות: בדקו מול התמונה",
        "Pročitano nesigurno: provjerite na fotografiji",
    ),
    "check.doubt": (
        "Read uncertainly (marked ?): compare with the photo, and if one is wrong, correct the "
        "meld above and check again:",
        "Letti con incertezza (segnati con ?): confrontali con la foto e, se uno è sbagliato, "
        "correggi la combinazione qui sopra e verifica di nuovo:",
        "Leídas con dudas (marcadas con ?): comparalas con la foto y, si alguna está mal, "
        "corregí el juego de arriba y verificá de nuevo:",
        "נקראו בחוסר ודאות (מסומנים ב-?): השוו מול התמונה, ואם אחד מהם שגוי, תקנו את הסדרה "
        "למעלה ובדקו שוב:",
        "Pročitano nesigurno (označeno s ?): usporedite s fotografijom i, ako je nešto krivo, "
        "ispravite kombinaciju iznad i provjerite ponovno:",
    ),
    "round.melds": ("Melds", "Combinazioni", "Juegos", "סדרות", "Kombinacije"),
    "round.add_meld": (
        "Type a meld",
        "Scrivi una combinazione",
        "Escribir un juego",
        "הקלדת סדרה",
        "Upiši kombinaciju",
    ),
    "round.add": ("Add", "Aggiungi", "Agregar", "הוספה", "Dodaj"),
    "round.hand": (
        "Left in hand",
        "Rimaste in mano",
        "Quedaron en la mano",
        "נשאר ביד",
        "Ostalo u ruci",
    ),
    "round.hand2": (
        "Partner's hand",
        "Mano del compagno",
        "Mano del compañero",
        "היד של השותף",
        "Partnerova ruka",
    ),
    "round.hand_photo": ("Photo", "Foto", "Foto", "צילום", "Fotografija"),
    "round.took_pot": (
        "Took the pot",
        "Ha preso il pozzetto",
        "Tomó el muerto",
        "לקח את הקופה",
        "Uzeo izvor",
    ),
    "round.closed": ("Closed", "Ha chiuso", "Cerró", "סגר", "Zatvorio"),
    "round.save": (
        "Save the round",
        "Salva la mano",
        "Guardar la mano",
        "שמירת הסיבוב",
        "Spremi rundu",
    ),
    "round.score": ("Score", "Punteggio", "Puntaje", "ניקוד", "Rezultat"),
    "round.split": (
        "Split after this",
        "Dividi dopo questa",
        "Dividir después",
        "פיצול אחרי",
        "Podijeli iza",
    ),
    "round.merge": (
        "Merge with next",
        "Unisci alla successiva",
        "Unir con el siguiente",
        "איחוד עם הבא",
        "Spoji sa sljedećom",
    ),
    "round.move": (
        "Move to meld",
        "Sposta nella combinazione",
        "Mover al juego",
        "העברה לסדרה",
        "Premjesti u kombinaciju",
    ),
    "round.new_meld": (
        "new meld",
        "nuova combinazione",
        "juego nuevo",
        "סדרה חדשה",
        "nova kombinacija",
    ),
    "round.remove": ("Remove", "Togli", "Quitar", "הסרה", "Ukloni"),
    "round.change": ("Change to", "Cambia in", "Cambiar por", "שינוי ל", "Promijeni u"),
    "round.add_piece": (
        "Add a piece",
        "Aggiungi una carta",
        "Agregar una ficha",
        "הוספת קלף",
        "Dodaj kartu",
    ),
    "round.facing_away": (
        "Laid facing the other side of the table",
        "Calate verso l'altro lato del tavolo",
        "Bajados hacia el otro lado de la mesa",
        "מונחים לכיוון הצד השני של השולחן",
        "Položene prema drugoj strani stola",
    ),
    "round.give_to": ("Move them to", "Spostale a", "Pasarlos a", "העברה אל", "Premjesti ih u"),
    "round.found_hand": (
        "Read as a hand or a rack, not a meld",
        "Lette come una mano o un leggio, non una combinazione",
        "Leídas como una mano o un atril, no un juego",
        "נקראו כיד או כמעמד, לא כסדרה",
        "Pročitano kao ruka ili stalak, ne kombinacija",
    ),
    "round.to_hand": (
        "Count them as left in hand",
        "Contale come rimaste in mano",
        "Contarlas como quedaron en la mano",
        "לספור אותם כנשארו ביד",
        "Računaj ih kao ostale u ruci",
    ),
    "round.unassigned": (
        "Not in a meld",
        "Fuori dalle combinazioni",
        "Fuera de los juegos",
        "לא בסדרה",
        "Izvan kombinacija",
    ),
    "round.saved": ("Saved", "Salvata", "Guardada", "נשמר", "Spremljeno"),
    "round.cancel": ("Cancel", "Annulla", "Cancelar", "ביטול", "Odustani"),
    "check.title": (
        "Settle a dispute",
        "Risolvi una disputa",
        "Resolver una duda",
        "הכרעה במחלוקת",
        "Riješi spor",
    ),
    "check.intro": (
        "Type a meld or photograph it: meldcam gives the verdict and the reason.",
        "Scrivi o fotografa una combinazione: meldcam dà il verdetto e il motivo.",
        "Escribí o fotografiá un juego: meldcam da el veredicto y el motivo.",
        "הקלידו או צלמו סדרה: meldcam נותן הכרעה ונימוק.",
        "Upišite ili fotografirajte kombinaciju: meldcam daje presudu i razlog.",
    ),
    "check.meld": ("Meld", "Combinazione", "Juego", "סדרה", "Kombinacija"),
    "check.ordered": (
        "As laid out (order matters)",
        "Come è disposta (conta l'ordine)",
        "Como está en la mesa (importa el orden)",
        "כפי שמונחת (הסדר חשוב)",
        "Kako je složena (redoslijed je bitan)",
    ),
    "check.go": ("Check", "Verifica", "Verificar", "בדיקה", "Provjeri"),
    "check.can_add": (
        "Can I add…",
        "Posso aggiungere…",
        "¿Puedo agregar…",
        "האם אפשר להוסיף…",
        "Mogu li dodati…",
    ),
    "check.others": (
        "Other melds in the photo",
        "Altre combinazioni nella foto",
        "Otros juegos en la foto",
        "סדרות נוספות בתמונה",
        "Ostale kombinacije na fotografiji",
    ),
    "check.this_one": (
        "Check this one",
        "Verifica questa",
        "Verificar este",
        "בדיקת הסדרה הזו",
        "Provjeri ovu",
    ),
    "check.valid": ("Valid", "Valida", "Válido", "תקין", "Ispravno"),
    "check.invalid": ("Not valid", "Non valida", "No válido", "לא תקין", "Neispravno"),
    "check.yes": ("Yes", "Sì", "Sí", "כן", "Da"),
    "check.no": ("No", "No", "No", "לא", "Ne"),
    "check.becomes": (
        "The meld becomes",
        "La combinazione diventa",
        "El juego queda",
        "הסדרה הופכת ל",
        "Kombinacija postaje",
    ),
    "kind.set": ("set", "combinazione", "pierna", "סט", "grupa"),
    "kind.run": ("run", "scala", "escalera", "רצף", "sekvenca"),
    "burraco.pure": (
        "pure burraco",
        "burraco pulito",
        "canasta pura",
        "בורקו טהור",
        "čisti burraco",
    ),
    "burraco.semi-pure": (
        "semi-pure burraco",
        "burraco semipulito",
        "canasta semipura",
        "בורקו חצי טהור",
        "polučisti burraco",
    ),
    "burraco.impure": (
        "impure burraco",
        "burraco sporco",
        "canasta impura",
        "בורקו",
        "nečisti burraco",
    ),
    "points": ("points", "punti", "puntos", "נקודות", "bodova"),
    "bonus": ("bonus", "bonus", "premio", "בונוס", "bonus"),
    "line.meld": ("meld", "combinazione", "juego", "סדרה", "kombinacija"),
    "line.burraco-pure": (
        "pure burraco",
        "burraco pulito",
        "canasta pura",
        "בורקו טהור",
        "čisti burraco",
    ),
    "line.burraco-semi-pure": (
        "semi-pure burraco",
        "burraco semipulito",
        "canasta semipura",
        "בורקו חצי טהור",
        "polučisti burraco",
    ),
    "line.burraco-impure": (
        "impure burraco",
        "burraco sporco",
        "canasta impura",
        "בורקו",
        "nečisti burraco",
    ),
    "line.closing": ("closing", "chiusura", "cierre", "סגירה", "zatvaranje"),
    "line.hand": ("hand", "mano", "mano", "יד", "ruka"),
    "line.pot-not-taken": (
        "pot not taken",
        "pozzetto non preso",
        "muerto no tomado",
        "הקופה לא נלקחה",
        "izvor nije uzet",
    ),
    "line.pot-not-played": (
        "pot not played",
        "pozzetto non giocato",
        "muerto sin jugar",
        "הקופה לא שוחקה",
        "izvor nije odigran",
    ),
    "line.rack": ("rack", "leggio", "atril", "מעמד", "stalak"),
    "line.went-out": ("went out", "chiusura", "cerró", "יצא", "izašao"),
    "line.void": ("void hand", "mano nulla", "mano anulada", "יד מבוטלת", "poništena ruka"),
    "nav.settings": ("Settings", "Impostazioni", "Ajustes", "הגדרות", "Postavke"),
    "login.title": (
        "Access code",
        "Codice di accesso",
        "Código de acceso",
        "קוד גישה",
        "Pristupni kod",
    ),
    "login.intro": (
        "This household's scores are protected: enter the access code to change them.",
        "I punteggi di questa casa sono protetti: inserisci il codice per modificarli.",
        "Los puntajes de esta casa están protegidos: ingresá el código para cambiarlos.",
        "הניקוד של הבית מוגן: הזינו את קוד הגישה כדי לשנות אותו.",
        "Rezultati ovog kućanstva su zaštićeni: unesite kod za izmjene.",
    ),
    "login.go": ("Enter", "Entra", "Entrar", "כניסה", "Uđi"),
    "login.wrong": ("Wrong code", "Codice errato", "Código incorrecto", "קוד שגוי", "Pogrešan kod"),
    "login.wait": (
        "Too many wrong codes from this device: try again in {seconds} s",
        "Troppi codici errati da questo dispositivo: riprova tra {seconds} s",
        "Demasiados códigos incorrectos desde este dispositivo: vuelve a intentarlo en {seconds} s",
        "יותר מדי קודים שגויים ממכשיר זה: נסו שוב בעוד {seconds} שניות",
        "Previše pogrešnih kodova s ovog uređaja: pokušajte ponovno za {seconds} s",
    ),
    "settings.title": ("Settings", "Impostazioni", "Ajustes", "הגדרות", "Postavke"),
    "settings.code": (
        "New access code",
        "Nuovo codice di accesso",
        "Nuevo código de acceso",
        "קוד גישה חדש",
        "Novi pristupni kod",
    ),
    "settings.read_open": (
        "Anyone may read the scores",
        "Tutti possono leggere i punteggi",
        "Cualquiera puede ver los puntajes",
        "כל אחד יכול לראות את הניקוד",
        "Svatko može čitati rezultate",
    ),
    "settings.save": ("Save", "Salva", "Guardar", "שמירה", "Spremi"),
    "settings.clear": (
        "Remove the access code",
        "Rimuovi il codice",
        "Quitar el código",
        "הסרת קוד הגישה",
        "Ukloni pristupni kod",
    ),
    "settings.saved": ("Saved", "Salvato", "Guardado", "נשמר", "Spremljeno"),
    "settings.off": (
        "No access code: anyone on this network can change the scores.",
        "Nessun codice: chiunque in questa rete può cambiare i punteggi.",
        "Sin código: cualquiera en esta red puede cambiar los puntajes.",
        "אין קוד גישה: כל אחד ברשת יכול לשנות את הניקוד.",
        "Nema koda: svatko u ovoj mreži može mijenjati rezultate.",
    ),
    "settings.on": (
        "An access code protects the scores.",
        "Un codice protegge i punteggi.",
        "Un código protege los puntajes.",
        "קוד גישה מגן על הניקוד.",
        "Pristupni kod štiti rezultate.",
    ),
    "problem": ("Problem", "Problema", "Problema", "בעיה", "Problem"),
    "problem.wrong-kind": (
        "Wrong kind of piece",
        "Tipo di pezzo sbagliato",
        "Tipo de pieza equivocado",
        "קלף או אבן מסוג שגוי",
        "Pogrešna vrsta karte ili pločice",
    ),
    "problem.too-few": (
        "Too few pieces",
        "Troppo pochi pezzi",
        "Muy pocas piezas",
        "סדרה קצרה מדי",
        "Prekratka kombinacija",
    ),
    "problem.only-wilds": (
        "Only wilds, no natural piece",
        "Solo matte, nessun pezzo naturale",
        "Solo comodines, ninguna pieza natural",
        "רק ג'וקרים",
        "Samo džokeri, nijedan prirodni komad",
    ),
    "problem.only-twos": (
        "A set of 2s only",
        "Combinazione di sole pinelle",
        "Pierna de solo doses",
        "סט של 2 בלבד",
        "Grupa samo od dvojki",
    ),
    "problem.too-many-wilds": (
        "Too many wilds",
        "Troppe matte",
        "Demasiados comodines",
        "יותר מדי ג'וקרים",
        "Previše džokera",
    ),
    "problem.not-a-meld": (
        "Neither a set nor a run",
        "Né combinazione né scala",
        "Ni pierna ni escalera",
        "לא סט ולא רצף",
        "Ni grupa ni sekvenca",
    ),
    "problem.mixed-ranks": (
        "Mixed ranks in a set",
        "Valori diversi nella combinazione",
        "Pierna con valores distintos",
        "ערכים שונים בסט",
        "Različite vrijednosti u grupi",
    ),
    "problem.mixed-suits": (
        "Mixed suits or colours in a run",
        "Semi o colori misti nella scala",
        "Escalera con palos o colores mezclados",
        "צורות או צבעים שונים ברצף",
        "Miješane boje u sekvenci",
    ),
    "problem.set-too-big": (
        "Set too big",
        "Combinazione troppo grande",
        "Pierna demasiado grande",
        "סט גדול מדי",
        "Prevelika grupa",
    ),
    "problem.repeated-colour": (
        "Colour repeated in a set",
        "Colore ripetuto nella combinazione",
        "Color repetido en la pierna",
        "צבע חוזר בסט",
        "Ponovljena boja u grupi",
    ),
    "problem.repeated-rank": (
        "Rank repeated in a run",
        "Valore ripetuto nella scala",
        "Valor repetido en la escalera",
        "ערך חוזר ברצף",
        "Ponovljena vrijednost u sekvenci",
    ),
    "problem.gap": (
        "Gap in the run",
        "Buco nella scala",
        "Hueco en la escalera",
        "פער ברצף",
        "Praznina u sekvenci",
    ),
    "problem.out-of-order": (
        "Run out of order",
        "Scala non in ordine",
        "Escalera desordenada",
        "רצף לא בסדר הנכון",
        "Pogrešan redoslijed u sekvenci",
    ),
    "problem.too-long": (
        "Run too long",
        "Scala troppo lunga",
        "Escalera demasiado larga",
        "רצף ארוך מדי",
        "Predugačka sekvenca",
    ),
    "problem.too-many-copies": (
        "Too many copies of a piece",
        "Troppe copie dello stesso pezzo",
        "Demasiadas copias de una pieza",
        "יותר מדי עותקים זהים",
        "Previše jednakih primjeraka",
    ),
    "problem.invalid-meld": (
        "Invalid meld",
        "Combinazione non valida",
        "Juego no válido",
        "סדרה לא תקינה",
        "Neispravna kombinacija",
    ),
    "problem.cannot-close": (
        "Cannot close",
        "Non può chiudere",
        "No puede cerrar",
        "אי אפשר לסגור",
        "Zatvaranje nije dopušteno",
    ),
    "problem.closed-with-hand": (
        "Closed with pieces in hand",
        "Chiusura con pezzi in mano",
        "Cerró con piezas en la mano",
        "סגירה עם יד לא ריקה",
        "Ruka nije prazna pri zatvaranju",
    ),
    "problem.two-closers": (
        "More than one side closed",
        "Più di una squadra ha chiuso",
        "Cerró más de un equipo",
        "יותר מצד אחד סגר",
        "Zatvorilo je više strana",
    ),
    "problem.wild-discard": (
        "Closing discard is a wild",
        "Chiusura scartando una matta",
        "Cierre descartando un comodín",
        "סגירה בהשלכת ג'וקר",
        "Zatvaranje odbacivanjem džokera",
    ),
    "problem.players": (
        "Wrong number of players",
        "Numero di giocatori non valido",
        "Cantidad de jugadores incorrecta",
        "מספר שחקנים שגוי",
        "Pogrešan broj igrača",
    ),
    "problem.first-meld": (
        "First meld worth too little",
        "Apertura sotto il minimo",
        "Primera bajada insuficiente",
        "ערך הפתיחה נמוך מדי",
        "Otvaranje ne vrijedi dovoljno",
    ),
    "error.generic": (
        "Something went wrong",
        "Qualcosa è andato storto",
        "Algo salió mal",
        "משהו השתבש",
        "Nešto nije u redu",
    ),
}
_INDEX = {code: i for i, code in enumerate(LANGUAGES)}


def text(key: str, lang: str) -> str:
    """The text of ``key`` in ``lang`` (English when missing)."""
    entry = _TEXT.get(key)
    if entry is None:
        return key
    return entry[_INDEX.get(lang, 0)]


def catalogue(lang: str) -> dict[str, str]:
    """Every text in one language, for the page's JavaScript."""
    return {key: text(key, lang) for key in _TEXT}


def choose(request: Request) -> str:
    asked = request.args.get("lang")
    if asked in LANGUAGES:
        return asked
    cookie = request.cookies.get("lang")
    if cookie in LANGUAGES:
        return cookie
    best = request.accept_languages.best_match(list(LANGUAGES))
    return best or DEFAULT
